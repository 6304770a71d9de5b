import { setImmediate as nextTurn } from 'node:timers/promises';
import { modelProfileColumnsOf } from '../service/runs/stored-profile.js';
import type { PipelineDependencies } from './pipeline-context.js';

/** The pass's name in `maintenance_passes`. */
export const modelProfileBackfillPass = 'run-model-profiles';
/** Profile characters read at once: a batch of ordinary profiles, or one oversized profile alone. */
const batchChars = 16 * 2 ** 20;

/**
 * Gives every run profiled before migration 0090 its model profile (what a recommendation reads), and
 * cuts a stored profile larger than the caps allow (one stored before the profile caps) to the caps.
 * Profiles are read a bounded number of characters at a time, an oversized one alone, so the pass never
 * holds more than one such profile; it runs once, before the workers take jobs, so no recommendation
 * sees a window without the runs it has yet to reach.
 */
export function modelProfileBackfill(
  deps: Pick<PipelineDependencies, 'runs' | 'maintenancePasses' | 'logger'>,
) {
  async function backfill(ids: string[]): Promise<{ done: number; recapped: number; unreadable: number }> {
    const result = { done: 0, recapped: 0, unreadable: 0 };
    for (const row of await deps.runs.profilesOf(ids)) {
      const columns = row.profile === null ? null : modelProfileColumnsOf(row.profile);
      if (!columns) {
        result.unreadable += 1;
        continue;
      }
      await deps.runs.setModelProfile(row.id, columns);
      result.done += 1;
      if (columns.profile !== undefined) result.recapped += 1;
    }
    return result;
  }

  return async function backfillModelProfiles(pageSize = 500): Promise<{ done: number; recapped: number }> {
    if (await deps.maintenancePasses.finished(modelProfileBackfillPass)) return { done: 0, recapped: 0 };
    const totals = { done: 0, recapped: 0, unreadable: 0 };
    let after: string | null = null;
    for (;;) {
      const page = await deps.runs.withoutModelProfile(after, pageSize);
      if (page.length === 0) break;
      after = page[page.length - 1]?.id ?? after;
      let batch: string[] = [];
      let chars = 0;
      for (const [index, row] of page.entries()) {
        batch.push(row.id);
        chars += row.chars;
        const next = page[index + 1];
        if (next && chars + next.chars <= batchChars) continue;
        const result = await backfill(batch);
        totals.done += result.done;
        totals.recapped += result.recapped;
        totals.unreadable += result.unreadable;
        batch = [];
        chars = 0;
        await nextTurn();
      }
    }
    if (totals.done + totals.unreadable > 0)
      deps.logger.info(totals, 'model profiles stored for runs profiled before them');
    await deps.maintenancePasses.markFinished(modelProfileBackfillPass);
    return { done: totals.done, recapped: totals.recapped };
  };
}
