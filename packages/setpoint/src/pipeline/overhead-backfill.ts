import type { RunProfile } from '../eventlog/run-profile.js';
import type { RunCost, StoredClusterFacts } from '../service/runs/run-records.js';
import { parseJsonColumn } from '../store/json-column.js';
import { type PipelineDependencies, projectOf } from './pipeline-context.js';

/** Totals equal to this share: the same prices as when the run was costed. */
const samePricesTolerance = 1e-9;

/**
 * Adds the overhead part to runs costed before the cost was split (what a run paid outside its Spark
 * application; only platforms that bill such time have one). The run is priced again from its stored
 * profile and cluster report; the split is stored only when the new total equals the stored one, so a
 * run's total never changes after the fact. A run priced since at other rates gets `overhead: null` (its
 * split at today's prices would not add up), as does a run of a platform that bills no such time; either
 * way the key marks the run as seen, so it is never priced again.
 */
export function overheadBackfill(
  deps: Pick<PipelineDependencies, 'runs' | 'coster' | 'projectRecords' | 'workspaces' | 'logger'>,
) {
  return async function backfillRunOverhead(limit = 1000): Promise<{ split: number; kept: number }> {
    const rows = await deps.runs.costedWithoutOverhead(limit);
    let split = 0;
    for (const row of rows) {
      const stored = parseJsonColumn<RunCost>(row.cost);
      const profile = parseJsonColumn<RunProfile>(row.profile);
      const facts = parseJsonColumn<StoredClusterFacts>(row.cluster_config);
      if (!stored || !profile || !facts) continue;
      const { workspace } = await projectOf(deps, row.project_id);
      const fresh = await deps.coster.cost({
        profile,
        cluster: facts.facts,
        clusterReport: parseJsonColumn<unknown>(row.cluster_report),
        workspace,
      });
      const samePrices =
        Math.abs(fresh.totalUsd - stored.totalUsd) <= samePricesTolerance * Math.max(1, stored.totalUsd);
      const overhead = samePrices ? (fresh.overhead ?? null) : null;
      await deps.runs.update(row.id, { cost: JSON.stringify({ ...stored, overhead }) });
      if (overhead) split += 1;
    }
    const kept = rows.length - split;
    if (rows.length > 0) deps.logger.info({ split, kept }, 'overhead added to runs costed before the split');
    return { split, kept };
  };
}
