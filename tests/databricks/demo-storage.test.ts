import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type ClosedLoop, startClosedLoop } from 'setpoint/demo/closed-loop-driver';
import { demoStorageEnv } from 'setpoint/demo/demo-storage';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// Three rounds of every emulator job through collection and parsing; slow on a busy machine.
vi.setConfig({ testTimeout: 600_000, hookTimeout: 120_000 });

const rounds = 3;

function bytesBelow(directory: string): number {
  let bytes = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true, recursive: true }))
    if (entry.isFile()) bytes += statSync(path.join(entry.parentPath, entry.name)).size;
  return bytes;
}

async function waitFor(probe: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe("the demo's storage and the emulator's memory stay bounded as runs accumulate", () => {
  let loop: ClosedLoop;
  let root: string;

  beforeAll(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'setpoint-demo-storage-'));
    loop = await startClosedLoop({
      port: 0,
      dataDir: path.join(root, 'demo'),
      seed: 2,
      env: { ...demoStorageEnv, SETPOINT_EVENTLOG_PRUNE_INTERVAL_SECONDS: '1', SETPOINT_LOG_LEVEL: 'silent' },
    });
  });

  afterAll(async () => {
    await loop?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("keeps one event log per project and retires old clusters' task detail, while every run stays listed", async () => {
    const blobs = path.join(root, 'demo', 'blobs');
    await loop.round();
    // one event log per project: the size the blob store should keep from now on
    const afterFirstRound = bytesBelow(blobs);
    for (let round = 1; round < rounds; round += 1) await loop.round();
    const projects = loop.jobs.flatMap((job) => job.projectIds);
    const logsKept = async () => {
      const row = await loop.server.services.store.db
        .selectFrom('runs')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('eventlog_blob_key', 'is not', null)
        .executeTakeFirstOrThrow();
      return Number(row.count);
    };
    await waitFor(async () => (await logsKept()) <= projects.length, 'retention to prune the event logs');
    expect(await logsKept()).toBeGreaterThan(0);
    // every run is still listed with its outcome; only the older event logs are gone
    for (const projectId of projects) expect((await loop.runsOf(projectId)).length).toBe(rounds);
    // the blob store holds those logs only: about the bytes one round's logs took, not three rounds' (a
    // later run on a bigger cluster writes a bigger log, so one round's bytes are not an exact bound)
    const afterRetention = bytesBelow(blobs);
    expect(afterFirstRound).toBeGreaterThan(0);
    expect(afterRetention).toBeLessThan(2 * afterFirstRound);

    // the emulator has dropped the task-level detail of clusters whose logs went out two simulated days ago
    const { state, clock } = loop.emulator.context;
    const retireBy =
      Math.max(...[...state.clusters.values()].map((cluster) => cluster.requestedAtMs)) + 3 * 86_400_000;
    // the loop's rounds drive the clock, which stands still between them: two simulated days pass here
    clock.advance(Math.max(0, retireBy + 1 - clock.now()));
    loop.emulator.context.engine.catchUp();
    const withDetail = [...state.clusters.values()].filter((cluster) => cluster.simulation.tasks.length > 0);
    expect(state.clusters.size).toBeGreaterThan(projects.length);
    expect(withDetail).toHaveLength(0);
  });
});
