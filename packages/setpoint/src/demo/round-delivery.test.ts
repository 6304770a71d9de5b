import { describe, expect, it } from 'vitest';
import { deliverRound, type RoundDelivery } from './round-delivery.js';

/** Records the order of every step; `digested` resolves only when the test releases it. */
function recorder() {
  const events: string[] = [];
  const pending = new Map<string, () => void>();
  const steps = {
    start: async (job: string) => {
      events.push(`start ${job}`);
      return `run-${job}`;
    },
    finish: async (runIds: readonly string[]) => {
      events.push(`finish ${runIds.join(',')}`);
    },
    digested: (_job: string, runId: string) =>
      new Promise<void>((resolve) => {
        events.push(`wait ${runId}`);
        pending.set(runId, () => {
          events.push(`digested ${runId}`);
          resolve();
        });
      }),
  };
  /** Lets queued promise callbacks run (no timer involved). */
  const drain = async () => {
    for (let turn = 0; turn < 10; turn += 1) await Promise.resolve();
  };
  return { events, pending, steps, drain };
}

async function deliver(delivery: RoundDelivery, release: (runId: string) => boolean) {
  const { events, pending, steps, drain } = recorder();
  const done = deliverRound(['a', 'b', 'c'], delivery, steps);
  // three runs need at most three releases; the rest find nothing pending
  for (let step = 0; step < 6; step += 1) {
    await drain();
    for (const [runId, resolve] of [...pending])
      if (release(runId)) {
        pending.delete(runId);
        resolve();
      }
  }
  await drain();
  return { events, done, pending };
}

describe('a round delivers its runs', () => {
  it('one at a time: no run starts before the previous run is digested', async () => {
    const { events, done } = await deliver('one-at-a-time', () => true);
    await done;
    expect(events).toEqual([
      'start a',
      'finish run-a',
      'wait run-a',
      'digested run-a',
      'start b',
      'finish run-b',
      'wait run-b',
      'digested run-b',
      'start c',
      'finish run-c',
      'wait run-c',
      'digested run-c',
    ]);
  });

  it('one at a time: a run never digested holds back every later run', async () => {
    const { events, pending } = await deliver('one-at-a-time', (runId) => runId !== 'run-b');
    expect(events).toEqual([
      'start a',
      'finish run-a',
      'wait run-a',
      'digested run-a',
      'start b',
      'finish run-b',
      'wait run-b',
    ]);
    expect([...pending.keys()]).toEqual(['run-b']);
  });

  it('in a burst: every run starts, in order, and finishes together before any is awaited', async () => {
    const { events, done } = await deliver('burst', () => true);
    await done;
    expect(events.slice(0, 4)).toEqual(['start a', 'start b', 'start c', 'finish run-a,run-b,run-c']);
    expect(events.slice(4)).toEqual([
      'wait run-a',
      'digested run-a',
      'wait run-b',
      'digested run-b',
      'wait run-c',
      'digested run-c',
    ]);
  });
});
