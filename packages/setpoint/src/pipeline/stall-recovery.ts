import { setImmediate as nextTurn } from 'node:timers/promises';
import type { PipelineDependencies } from './pipeline-context.js';

const enqueuesPerTurn = 20;

const stepFor = {
  INGESTING: 'run.ingest',
  PARSING: 'run.parse',
  COSTING: 'run.cost',
  MODELING: 'run.request-recommendation',
} as const;

/**
 * Re-queues the current step of runs that stopped moving (a process died between storing a run and
 * queueing its next job). Steps are idempotent, so a duplicate is harmless.
 */
export function stallRecovery(deps: Pick<PipelineDependencies, 'runs' | 'queue' | 'logger'>) {
  return async function resumeStalledRuns(stalledForMs: number): Promise<number> {
    const runs = await deps.runs.stalled(
      Object.keys(stepFor) as Array<keyof typeof stepFor>,
      Date.now() - stalledForMs,
      1000,
    );
    for (const [i, run] of runs.entries()) {
      const kind = stepFor[run.pipelineState as keyof typeof stepFor];
      await deps.queue.enqueue(kind, { runId: run.id }, { idempotencyKey: `${kind}:${run.id}` });
      // a backlog is hundreds of runs waiting for their turn, each an insert that resolves at once on
      // SQLite: the event loop answers health checks and the API between batches of them
      if ((i + 1) % enqueuesPerTurn === 0) await nextTurn();
    }
    if (runs.length > 0) deps.logger.info({ runs: runs.length }, 'stalled runs re-queued');
    return runs.length;
  };
}
