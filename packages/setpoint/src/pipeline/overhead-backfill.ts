import { setImmediate as nextTurn } from 'node:timers/promises';
import type { RunCost } from '../service/runs/run-records.js';
import { type PipelineDependencies, projectOf } from './pipeline-context.js';

/** Totals equal to this share: the same prices as when the run was costed. */
const samePricesTolerance = 1e-9;
/** The pass's name in `maintenance_passes`. */
export const overheadBackfillPass = 'run-cost-overhead-split';

/**
 * Adds the overhead part to runs costed before the cost was split (what a run paid outside its Spark
 * application; only platforms that bill such time have one). The run is priced again from its stored
 * profile and cluster report; the split is stored only when the new total equals the stored one, so a
 * run's total never changes after the fact. A run priced since at other rates gets `overhead: null` (its
 * split at today's prices would not add up), as does a run of a platform that bills no such time, or one
 * whose stored profile or cluster facts cannot be read; either way the key marks the run as seen, so it
 * is never priced again. Costing has recorded the key since the split, so once the pass has read every
 * such run none can appear: it is recorded as finished and later starts do not scan the runs again.
 */
export function overheadBackfill(
  deps: Pick<
    PipelineDependencies,
    'runs' | 'maintenancePasses' | 'platforms' | 'projectRecords' | 'workspaces' | 'logger'
  >,
) {
  /** Prices one batch; returns how many runs it read, marked, and gave an overhead. */
  async function backfillBatch(limit: number): Promise<{ read: number; marked: number; split: number }> {
    const runs = await deps.runs.costedWithoutOverhead(limit);
    let marked = 0;
    let split = 0;
    for (const run of runs) {
      const stored = run.cost;
      if (!stored) continue;
      const { profile, cluster } = run;
      let overhead: RunCost['overhead'] = null;
      if (profile && cluster) {
        const { workspace } = await projectOf(deps, run.projectId);
        const fresh = await deps.platforms.forWorkspace(workspace).coster.cost({
          profile,
          cluster: cluster.facts,
          clusterReport: run.clusterReport,
          workspace,
        });
        const samePrices =
          Math.abs(fresh.totalUsd - stored.totalUsd) <= samePricesTolerance * Math.max(1, stored.totalUsd);
        overhead = samePrices ? (fresh.overhead ?? null) : null;
      }
      await deps.runs.update(run.id, { cost: { ...stored, overhead } });
      marked += 1;
      if (overhead) split += 1;
    }
    return { read: runs.length, marked, split };
  }

  /** `batchSize`: runs priced per turn of the event loop, so a large history never holds a worker. */
  return async function backfillRunOverhead(batchSize = 200): Promise<{ split: number; kept: number }> {
    if (await deps.maintenancePasses.finished(overheadBackfillPass)) return { split: 0, kept: 0 };
    let read = 0;
    let split = 0;
    for (;;) {
      const batch = await backfillBatch(batchSize);
      read += batch.read;
      split += batch.split;
      // a batch of unreadable costs only would come back the same: stop rather than loop
      if (batch.read < batchSize || batch.marked === 0) break;
      await nextTurn();
    }
    const kept = read - split;
    if (read > 0) deps.logger.info({ split, kept }, 'overhead added to runs costed before the split');
    await deps.maintenancePasses.markFinished(overheadBackfillPass);
    return { split, kept };
  };
}
