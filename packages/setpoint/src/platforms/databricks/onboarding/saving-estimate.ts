import { defaultProjectSettings } from '@setpoint/api-contract';
import { isAppError } from '@setpoint/foundation/errors';
import { countOf } from '@setpoint/foundation/words';
import type { ConfidentChoice } from '../../../service/recommender/optimizer-recommender.js';
import type { RecommendationInput } from '../../../service/recommender/recommender.js';
import type { WorkspaceFacts } from '../../../service/workspaces/workspace-service.js';
import { type EvidenceContext, type JobRunEvidence, recommenderRunOf, runSucceeded } from './job-evidence.js';

/** What a job could save a month, what the figure rests on, or why there is none. */
export interface SavingEstimate {
  /** Null: not estimated (`note` says why). 0: estimated, nothing to save (`note` says why). */
  monthlyUsd: number | null;
  /** What the estimate rests on, in words; null without an estimate. */
  basis: string | null;
  /** Why there is no estimate, or why it is 0; null when there is a saving. */
  note: string | null;
}

/** The optimizer pass of a first recommendation, read for its cheapest confident configuration. */
export type ConfidentChoiceOf = (input: RecommendationInput) => Promise<ConfidentChoice>;

/** The newest runs of a job the estimate learns from, as a recommendation's window would hold them. */
export const evidenceRuns = 20;

const usd = (value: number) => `$${value.toFixed(2)}`;
const percent = (share: number) => `${Math.round(share * 100)}%`;
const messageOf = (error: unknown) =>
  isAppError(error) || error instanceof Error ? error.message : String(error);

export function notEstimated(note: string): SavingEstimate {
  return { monthlyUsd: null, basis: null, note };
}

/**
 * A job not imported yet, from its own runs and the fleet model through the optimizer pass a first
 * recommendation runs: the expected cost per run of its cluster less that of the cheapest configuration
 * the optimizer expects, with at least its confidence, to keep within the runtime bound (no SLA is set
 * before import: the best runtime seen plus 10%), times its runs a month. Nothing is recorded.
 */
export async function estimateFromEvidence(input: {
  jobId: string;
  name: string;
  workspace: WorkspaceFacts;
  /** Its finished runs in the window, oldest first, each with the cluster it ran. */
  evidence: readonly JobRunEvidence[];
  runsPerMonth: number;
  context: EvidenceContext;
  confidentChoice: ConfidentChoiceOf;
}): Promise<SavingEstimate> {
  const newest = input.evidence.slice(-evidenceRuns);
  if (newest.length === 0) return notEstimated('not estimated: no finished run in the window to learn from');
  if (!newest.some((entry) => runSucceeded(entry.run)))
    return notEstimated(
      'not estimated: no run in the window succeeded, so there is no runtime to learn from',
    );
  let choice: ConfidentChoice;
  try {
    const runs = newest.flatMap((entry) => recommenderRunOf(entry, input.context) ?? []);
    const basedOn = runs.at(-1);
    if (!basedOn) return notEstimated('not estimated: no run in the window has a duration to learn from');
    choice = await input.confidentChoice({
      project: {
        id: `discover:${input.workspace.id}:${input.jobId}`,
        name: input.name,
        phase: 'LEARNING',
        settings: defaultProjectSettings(),
        workspace: input.workspace,
      },
      basedOnRunId: basedOn.id,
      runs,
      recommendations: [],
    });
  } catch (error) {
    return notEstimated(`not estimated: ${messageOf(error)}`);
  }
  const fleet =
    choice.basis.fleetJobs > 0 ? ` and the fleet model (${countOf(choice.basis.fleetJobs, 'job')})` : '';
  const evidence = `${countOf(choice.basis.runs, 'run')} of this job on ${choice.current.description}${fleet}`;
  const bound =
    choice.slaSeconds === null
      ? 'its runtime'
      : `${(choice.slaSeconds / 60).toFixed(1)} min (${choice.hasSla ? 'its SLA' : 'its best runtime + 10%'})`;
  if (!choice.choice)
    return {
      monthlyUsd: 0,
      basis: evidence,
      note: `nothing to save yet: no configuration is ${percent(choice.confidence)} likely to keep within ${bound}`,
    };
  const perRun = choice.current.expectedCostUsd - choice.choice.expectedCostUsd;
  if (!(perRun > 0))
    return {
      monthlyUsd: 0,
      basis: evidence,
      note: `nothing to save: its cluster is already the cheapest configuration ${percent(choice.confidence)} likely to keep within ${bound}`,
    };
  return {
    monthlyUsd: perRun * input.runsPerMonth,
    basis:
      `${evidence}: ${choice.choice.description} is expected to cost ${usd(choice.choice.expectedCostUsd)} a run ` +
      `against ${usd(choice.current.expectedCostUsd)}, ${percent(choice.choice.probabilityMeetsSla)} likely to keep ` +
      `within ${bound}; × ${input.runsPerMonth.toFixed(1)} runs a month`,
    note: null,
  };
}

/** One cluster of an imported job: what it costs a run now and its project's newest recommendation. */
export interface ImportedCluster {
  project: string;
  /** At list prices, from the job's runs in the window; null when it could not be priced. */
  costPerRunUsd: number | null;
  latest: { action: 'keep' | 'change'; predictedCostUsd: number; learning: boolean } | null;
}

/**
 * A job Setpoint already optimizes: what its projects' newest recommendations still leave (their
 * predicted cost per run against what each cluster costs a run now), never a fresh estimate; nothing
 * when Setpoint keeps every cluster as it is.
 */
export function savingLeft(clusters: readonly ImportedCluster[], runsPerMonth: number): SavingEstimate {
  if (clusters.length === 0)
    return notEstimated('not estimated: imported, but none of its projects was found');
  const waiting = clusters.filter((cluster) => cluster.latest === null);
  if (waiting.length > 0)
    return notEstimated(
      `not estimated yet: imported; ${waiting.map((cluster) => cluster.project).join(', ')} has no recommendation yet (the first comes after its first collected run)`,
    );
  const changes = clusters.filter((cluster) => cluster.latest?.action === 'change');
  if (changes.length === 0)
    return {
      monthlyUsd: 0,
      basis: 'already optimized: Setpoint keeps its cluster as it is',
      note: 'nothing left: the job runs the configuration Setpoint recommends',
    };
  const unpriced = changes.find((cluster) => cluster.costPerRunUsd === null);
  if (unpriced) return notEstimated(`not estimated: the cluster of ${unpriced.project} could not be priced`);
  const now = changes.reduce((sum, cluster) => sum + (cluster.costPerRunUsd ?? 0), 0);
  const predicted = changes.reduce((sum, cluster) => sum + (cluster.latest?.predictedCostUsd ?? 0), 0);
  const perRun = Math.max(0, now - predicted);
  const learning = changes.some((cluster) => cluster.latest?.learning);
  return {
    monthlyUsd: perRun * runsPerMonth,
    basis:
      `what is left: the newest recommendation predicts ${usd(predicted)} a run against ${usd(now)} now` +
      `${learning ? ' (a learning run: the figure firms up as Setpoint learns)' : ''}; × ${runsPerMonth.toFixed(1)} runs a month`,
    note:
      perRun > 0 ? null : 'nothing left: the recommended configuration costs no less than the cluster now',
  };
}
