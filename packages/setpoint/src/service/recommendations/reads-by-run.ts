import type { RecommenderRun } from './recommender.js';

/**
 * What a platform's recommender reads before recommending (asynchronously: a workspace's policy, the node
 * types a region offers), held for its cluster model, which builds the candidate space synchronously, by
 * based-on run and only while that recommendation is in progress.
 */
export class ReadsByRun<Read> {
  readonly #byRun = new Map<string, Read>();

  /** The read held for this based-on run, or null when none is in progress for it. */
  readonly of = (run: Pick<RecommenderRun, 'id'>): Read | null => this.#byRun.get(run.id) ?? null;

  /** Holds `read` for the based-on run while `recommend` runs. */
  async during<Result>(runId: string, read: Read, recommend: () => Promise<Result>): Promise<Result> {
    this.#byRun.set(runId, read);
    try {
      return await recommend();
    } finally {
      this.#byRun.delete(runId);
    }
  }
}
