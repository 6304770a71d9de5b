import { median, medianOfKnown, quantile, rounded } from '@setpoint/foundation/statistics';
import { afterFirstRecommendation } from 'setpoint/demo/after-first-recommendation';
import { loopEpisodeOf, runsAfterLearning, summarizeProject } from 'setpoint/demo/loop-summary';
import type { JobBankProject } from './jobbank-project.js';
import { type LatencyPart, latencyParts, type RunLatency } from './latency-breakdown.js';
import { savingBreakdown } from './saving-breakdown.js';

/** A project whose last run cost more than its first, and whether Setpoint had changed its cluster. */
export interface DearerThanColdStart {
  job: string;
  project: string;
  seed: number;
  saving: number;
  /**
   * Some run was made on a recommendation that changed the cluster. False: every run used the cold-start
   * cluster, so the rise is the job's own (input growth, noise), not a decision.
   */
  clusterChanged: boolean;
}

function clusterChanged(project: JobBankProject): boolean {
  return project.runs.some(
    (run) => run.recommendationId !== null && project.changeRecommendationIds.has(run.recommendationId),
  );
}

/** What happened around the optimizer: the service path's own health. */
export interface JobBankOperations {
  /** Webhook received → the next recommendation ready, per run that led to one. */
  webhookToRecommendationMs: number[];
  /** The same runs' time split by step. */
  latency: RunLatency[];
  /** Collection jobs that used every attempt and were parked. */
  collectionFailures: number;
  /** Runs stored without a complete event log. */
  incompleteRuns: number;
  /** Applied configurations Setpoint took back after a failed or badly late run. */
  reverts: number;
}

/** |actual / predicted − 1| for every finished run made on a recommendation with a prediction. */
export function predictionErrors(project: JobBankProject): number[] {
  return project.runs.flatMap((run) => {
    const predicted = run.recommendationId
      ? project.predictedRuntimeMinutes.get(run.recommendationId)
      : undefined;
    if (!predicted || run.status !== 'SUCCESS' || run.runtimeMinutes === null) return [];
    return [Math.abs(run.runtimeMinutes / predicted - 1)];
  });
}

const share = (count: number, of: number) => (of ? count / of : null);

export function jobBankMetrics(projects: JobBankProject[], operations: JobBankOperations) {
  const summaries = projects.map((project) => ({
    project,
    summary: summarizeProject(project.project, project.runs, project.slaMinutes, project.phase),
  }));
  const afterLearning = projects.flatMap((project) => runsAfterLearning(project.runs));
  const slaMet = summaries.reduce((sum, { summary }) => sum + summary.slaMetLastRuns.met, 0);
  // learning runs included: the misses a team sees while Setpoint learns
  const runs3On = summaries.reduce(
    (sum, { summary }) => ({
      met: sum.met + summary.slaMetAfterFirstRecommendation.met,
      of: sum.of + summary.slaMetAfterFirstRecommendation.of,
    }),
    { met: 0, of: 0 },
  );
  const errors = projects.flatMap(predictionErrors);
  const everyRun = afterFirstRecommendation(
    projects.map((project) => loopEpisodeOf(project.runs, project.slaMinutes)),
  );
  const figuresOf = (group: typeof summaries) => {
    const ofGroup = group.map(({ summary }) => summary);
    return {
      /** median |actual / predicted − 1| runtime of the group's runs made on a recommendation. */
      medianAbsPredictionError: median(group.flatMap(({ project }) => predictionErrors(project))),
      medianSaving: medianOfKnown(ofGroup.map((summary) => summary.saving)),
      /** The median project's saving over every run after the first, against the first (`ProjectSummary`). */
      medianSavingAfterFirstRecommendation: medianOfKnown(
        ofGroup.map((summary) => summary.savingAfterFirstRecommendation),
      ),
      slaMetShare: share(
        ofGroup.reduce((sum, summary) => sum + summary.slaMetLastRuns.met, 0),
        ofGroup.reduce((sum, summary) => sum + summary.slaMetLastRuns.of, 0),
      ),
    };
  };
  const perJob: Record<string, { platform: JobBankProject['platform'] } & ReturnType<typeof figuresOf>> = {};
  for (const job of new Set(projects.map((project) => project.job))) {
    const ofJob = summaries.filter(({ project }) => project.job === job);
    perJob[job] = { platform: ofJob[0]?.project.platform ?? 'databricks', ...figuresOf(ofJob) };
  }
  const perPlatform: Partial<
    Record<JobBankProject['platform'], { projects: number } & ReturnType<typeof figuresOf>>
  > = {};
  for (const platform of new Set(projects.map((project) => project.platform))) {
    const ofPlatform = summaries.filter(({ project }) => project.platform === platform);
    perPlatform[platform] = { projects: ofPlatform.length, ...figuresOf(ofPlatform) };
  }
  return {
    projects: projects.length,
    runs: projects.reduce((sum, project) => sum + project.runs.length, 0),
    afterLearning: {
      runs: afterLearning.length,
      slaMetShare: share(slaMet, afterLearning.length),
      failureRate: share(
        afterLearning.filter((run) => run.status !== 'SUCCESS').length,
        afterLearning.length,
      ),
      medianSaving: medianOfKnown(summaries.map(({ summary }) => summary.saving)),
    },
    /**
     * Every run after the first recommendation (runs 2 to N) of the projects with an SLA, learning runs
     * included; `slaMetShareRuns3On` is the earlier figure, from the third run on.
     */
    afterFirstRecommendation: {
      ...everyRun,
      slaMetShare: everyRun.slaViolationRate === null ? null : 1 - everyRun.slaViolationRate,
      slaMetShareRuns3On: share(runs3On.met, runs3On.of),
    },
    prediction: {
      samples: errors.length,
      medianAbsError: median(errors),
      p90AbsError: rounded(quantile(errors, 0.9)),
    },
    operations: {
      webhookToRecommendation: {
        samples: operations.webhookToRecommendationMs.length,
        p50Ms: rounded(quantile(operations.webhookToRecommendationMs, 0.5)),
        p95Ms: rounded(quantile(operations.webhookToRecommendationMs, 0.95)),
        /** Each part's median and p95 over the runs (they do not add up: each is its own distribution). */
        parts: Object.fromEntries(
          latencyParts.map((part) => {
            const values = operations.latency.map((run) => run[part]);
            return [part, { p50Ms: rounded(quantile(values, 0.5)), p95Ms: rounded(quantile(values, 0.95)) }];
          }),
        ) as Record<LatencyPart, { p50Ms: number | null; p95Ms: number | null }>,
        perRun: operations.latency,
      },
      collectionFailures: operations.collectionFailures,
      incompleteRuns: operations.incompleteRuns,
      reverts: operations.reverts,
    },
    perJob,
    perPlatform,
    /** Where each project's saving went (learning runs, the best seen, what it ended on), by platform. */
    savingBreakdown: Object.fromEntries(
      [...new Set(projects.map((project) => project.platform))].map((platform) => [
        platform,
        savingBreakdown(projects.filter((project) => project.platform === platform)),
      ]),
    ),
    dearerThanColdStart: summaries.flatMap(({ project, summary }): DearerThanColdStart[] =>
      summary.saving !== null && summary.saving < 0
        ? [
            {
              job: project.job,
              project: project.project,
              seed: project.seed,
              saving: summary.saving,
              clusterChanged: clusterChanged(project),
            },
          ]
        : [],
    ),
  };
}

export type JobBankMetrics = ReturnType<typeof jobBankMetrics>;
