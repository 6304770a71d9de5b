import { median } from '@setpoint/foundation/statistics';

/** Databricks documents standard mode as starting "typically within 4 to 6 minutes". */
const standardStartupMinutes = { quick: 4, slow: 6 } as const;

/** One run of a serverless project, as the service recorded it. */
export interface ServerlessRunRecord {
  performanceTarget: string | null;
  status: string | null;
  runtimeMinutes: number | null;
  /** Null while (or when) its cost is pending. */
  costUsd: number | null;
  /** Still "cost pending" at the end. */
  costPending: boolean;
  /** Its cost was pending until its bill landed (no billed run of its job to estimate from). */
  wasPending: boolean;
}

/** A serverless project of one seed, with its runs oldest first. */
export interface ServerlessProjectRecord {
  job: string;
  seed: number;
  slaMinutes: number | null;
  runs: ServerlessRunRecord[];
  /** `performance_target` writes Setpoint applied (its apply history, the baseline at import left out). */
  modeWrites: number;
}

/**
 * How the SLA meets standard mode's documented start-up, judged on the job's own performance-optimized runs
 * (their median runtime, start-up included, plus 4 or 6 minutes): `allows` even at 6 minutes, `not` even at
 * 4, `between` otherwise. The advice does not read this: it is the bench's yardstick.
 */
export type StartupSensitivity = 'allows' | 'between' | 'not';

export interface ServerlessJobFigures {
  job: string;
  seed: number;
  slaMinutes: number | null;
  sensitivity: StartupSensitivity | null;
  /** Median runtime of its performance-optimized runs (minutes, start-up included). */
  optimizedMinutes: number | null;
  runs: number;
  standardRuns: number;
  modeWrites: number;
  /** Median billed cost of its performance-optimized runs: what a run costs unchanged. */
  baselineUsd: number | null;
  /**
   * 1 − (what every run after the first recommendation cost) ÷ (as many runs at the baseline): what the team
   * lived through, the trial run included.
   */
  savingAfterFirstRecommendation: number | null;
  /** 1 − median standard-mode run ÷ baseline: the steady state once moved. */
  savingInStandard: number | null;
  /** Runs after the first recommendation over the SLA, or failed. */
  slaMissesAfterFirstRecommendation: number;
  zeroCostRuns: number;
  pendingRuns: number;
  wasPendingRuns: number;
}

export interface ServerlessMetrics {
  jobs: ServerlessJobFigures[];
  /** Over the jobs whose SLA allows standard mode: the smallest saving (the goal is ≥ 20 % for each). */
  allowsMinSaving: number | null;
  allowsMedianSaving: number | null;
  /** Jobs whose SLA does not allow standard mode that Setpoint changed (goal: none). */
  notAllowedChanged: number;
  /** Runs shown at $0, or still pending at the end (goal: none). */
  zeroCostRuns: number;
  pendingRuns: number;
}

function sensitivityOf(optimizedMinutes: number | null, sla: number | null): StartupSensitivity | null {
  if (optimizedMinutes === null || sla === null) return null;
  if (optimizedMinutes + standardStartupMinutes.slow <= sla) return 'allows';
  if (optimizedMinutes + standardStartupMinutes.quick > sla) return 'not';
  return 'between';
}

const billed = (runs: readonly ServerlessRunRecord[]) =>
  runs.flatMap((run) => (run.costUsd !== null && run.costUsd > 0 ? [run.costUsd] : []));

function figuresOf(project: ServerlessProjectRecord): ServerlessJobFigures {
  const optimized = project.runs.filter(
    (run) => run.performanceTarget === 'PERFORMANCE_OPTIMIZED' && run.status === 'SUCCESS',
  );
  const optimizedMinutes = median(optimized.flatMap((run) => run.runtimeMinutes ?? []));
  const baselineUsd = median(billed(optimized));
  // the first recommendation follows the first run: every run from the second on is lived with it
  const after = project.runs.slice(1);
  const afterUsd = billed(after);
  const standardUsd = median(billed(project.runs.filter((run) => run.performanceTarget === 'STANDARD')));
  const sla = project.slaMinutes;
  return {
    job: project.job,
    seed: project.seed,
    slaMinutes: sla,
    sensitivity: sensitivityOf(optimizedMinutes, sla),
    optimizedMinutes,
    runs: project.runs.length,
    standardRuns: project.runs.filter((run) => run.performanceTarget === 'STANDARD').length,
    modeWrites: project.modeWrites,
    baselineUsd,
    savingAfterFirstRecommendation:
      baselineUsd && afterUsd.length === after.length && after.length > 0
        ? 1 - afterUsd.reduce((sum, usd) => sum + usd, 0) / (baselineUsd * after.length)
        : null,
    savingInStandard: baselineUsd && standardUsd !== null ? 1 - standardUsd / baselineUsd : null,
    slaMissesAfterFirstRecommendation:
      sla === null
        ? 0
        : after.filter((run) => run.status !== 'SUCCESS' || (run.runtimeMinutes ?? 0) > sla).length,
    zeroCostRuns: project.runs.filter((run) => run.costUsd !== null && run.costUsd <= 0).length,
    pendingRuns: project.runs.filter((run) => run.costPending).length,
    wasPendingRuns: project.runs.filter((run) => run.wasPending).length,
  };
}

/**
 * The serverless Job Bank's figures: per job and seed, its start-up sensitivity, the performance-mode
 * advice's saving over every run after the first recommendation, SLA misses, mode writes and runs at $0.
 */
export function serverlessMetrics(projects: readonly ServerlessProjectRecord[]): ServerlessMetrics {
  const jobs = projects.map(figuresOf);
  const allows = jobs.filter((job) => job.sensitivity === 'allows');
  const allowsSavings = allows.flatMap((job) => job.savingAfterFirstRecommendation ?? []);
  return {
    jobs,
    // a job whose saving could not be measured leaves the minimum unknown, not smaller
    allowsMinSaving:
      allowsSavings.length > 0 && allowsSavings.length === allows.length ? Math.min(...allowsSavings) : null,
    allowsMedianSaving: median(allowsSavings),
    notAllowedChanged: jobs.filter(
      (job) => job.sensitivity === 'not' && (job.modeWrites > 0 || job.standardRuns > 0),
    ).length,
    zeroCostRuns: jobs.reduce((sum, job) => sum + job.zeroCostRuns, 0),
    pendingRuns: jobs.reduce((sum, job) => sum + job.pendingRuns, 0),
  };
}
