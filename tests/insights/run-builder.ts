import type { InsightRun } from '@setpoint/insights';

export const day = 24 * 3600 * 1000;
export const gb = 1024 ** 3;
export const start = Date.UTC(2026, 0, 1);

export interface RunSpec {
  minutes?: number;
  cost?: number | null;
  inputGb?: number | null;
  status?: string | null;
  config?: string | null;
  rec?: string | null;
  utilization?: number | null;
  spotLosses?: number | null;
}

/** One run a day from `start`, in order; each spec overrides the defaults of a successful 10-minute run. */
export function dailyRuns(specs: RunSpec[], firstDay = 0): InsightRun[] {
  return specs.map((spec, index) => {
    const startedAt = start + (firstDay + index) * day;
    return {
      id: `run-${firstDay + index}`,
      startedAt,
      endedAt: startedAt + (spec.minutes ?? 10) * 60_000,
      status: spec.status === undefined ? 'SUCCESS' : spec.status,
      costUsd: spec.cost === undefined ? 10 : spec.cost,
      costComponents:
        spec.cost === null
          ? null
          : [
              {
                kind: 'compute',
                fee: null,
                platform: 'databricks',
                cloud: 'aws',
                billed_by: 'cloud',
                usd: spec.cost === undefined ? 10 : spec.cost,
              },
            ],
      inputBytes: spec.inputGb === undefined || spec.inputGb === null ? null : spec.inputGb * gb,
      configKey: spec.config === undefined ? 'm5.xlarge x4' : spec.config,
      recommendationId: spec.rec ?? null,
      coreUtilization: spec.utilization ?? null,
      spotLosses: spec.spotLosses ?? null,
    };
  });
}

export const repeat = <T>(count: number, make: (index: number) => T): T[] =>
  Array.from({ length: count }, (_, i) => make(i));
