import type { NewClusterSettings } from '@setpoint/databricks-emulator';
import type { EmulatorPackage } from 'setpoint/demo/load-emulator';
import { describeProblem, refusedProblems } from 'setpoint/platforms/databricks/validity/accepted-cluster';
import { listedWorkspaceFacts } from 'setpoint/platforms/databricks/validity/workspace-facts';

/**
 * Every recommendation of the simulated loop checked with Databricks' validity contract as the cluster
 * it writes: the job's cluster with the recommendation over it, judged as Setpoint's writer and the
 * workspace judge it (a rule broken on the request, or at launch when the cluster the job ran on did
 * not already break it). `invalid` is 0 when every configuration Setpoint recommended is one Databricks
 * accepts.
 */
export interface RecommendationValidity {
  /** Recommendations checked: every one the loops made, those that keep the cluster included. */
  checked: number;
  /** Those Databricks would refuse. */
  invalid: number;
  /** The first few: "<job> seed <n> after run <i>: <rule>: <message>". */
  examples: string[];
}

const maxExamples = 5;

type WorkspaceFacts = ReturnType<typeof listedWorkspaceFacts>;

export const noRecommendationsChecked = (): RecommendationValidity => ({
  checked: 0,
  invalid: 0,
  examples: [],
});

/**
 * What the simulated workspace of a cloud offers, as its `clusters/list-node-types` answers (the emulator's
 * listing, read as Setpoint's writer reads a workspace's).
 */
export function simulatedWorkspaceFacts(
  emulator: Pick<EmulatorPackage, 'nodeTypesJson'>,
  cloud: 'aws' | 'azure',
): WorkspaceFacts {
  return listedWorkspaceFacts({ cloud, listed: emulator.nodeTypesJson(undefined, cloud) });
}

/** Adds one recommendation's check to the tally: `written` over the job's `running` cluster. */
export function checkRecommendation(
  tally: RecommendationValidity,
  where: string,
  written: NewClusterSettings,
  running: NewClusterSettings,
  facts: WorkspaceFacts,
): void {
  tally.checked += 1;
  const refused = refusedProblems(written, facts, running);
  if (refused.length === 0) return;
  tally.invalid += 1;
  for (const violation of refused) {
    if (tally.examples.length < maxExamples) tally.examples.push(`${where}: ${describeProblem(violation)}`);
  }
}

/** Tallies of several loops added up (examples: the first few). */
export function addRecommendationValidity(
  total: RecommendationValidity,
  more: RecommendationValidity,
): RecommendationValidity {
  return {
    checked: total.checked + more.checked,
    invalid: total.invalid + more.invalid,
    examples: [...total.examples, ...more.examples].slice(0, maxExamples),
  };
}
