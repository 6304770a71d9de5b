import { ValidationError } from '@setpoint/foundation/errors';
import { type CostModel, createCostModel } from '../../../cost/cost-model.js';
import { costRecord, runCost, type TimelineCost } from '../../../cost/run-cost.js';
import type { PriceCatalog } from '../../../pricing/price-catalog.js';
import type { CostInput, RunCoster } from '../../../service/runs/run-analysis.js';
import type { RunCost, RunOverheadCost } from '../../../service/runs/run-records.js';
import { type EmrRunReport, emrRunReportSchema } from '../runs/emr-run-report.js';
import { emrServerlessRunReportSchema } from '../serverless/emr-serverless-report.js';
import { emrServerlessRunCost } from '../serverless/emr-serverless-run.js';
import { applicationWindow, billingWindow, emrClusterTimeline } from './emr-timeline.js';

/** An EMR run's cost: EC2 by instance and market, the EMR fee per instance-hour and EBS, per second, one-minute minimum. */
export function emrRunCost(model: CostModel, report: EmrRunReport): TimelineCost {
  return runCost(model, emrClusterTimeline(report));
}

/**
 * What the run paid outside its Spark application: on a cluster launched for the step, its provisioning,
 * bootstrap, the idle minutes around the step and its termination; on a shared cluster, the step's own
 * submit and wrap-up. That time is the same whatever the cluster's shape, while the application's part
 * scales with its runtime; null when the application's span is unknown.
 */
export function emrRunOverhead(
  model: CostModel,
  report: EmrRunReport,
  application: { startTime: number | null; endTime: number | null },
  totalUsd: number,
): RunOverheadCost | null {
  const app = applicationWindow(report, application);
  if (!app) return null;
  const billed = billingWindow(report);
  const seconds = (billed.endMs - billed.startMs - (app.endMs - app.startMs)) / 1000;
  let insideUsd: number;
  try {
    insideUsd = runCost(model, emrClusterTimeline(report, app)).total;
  } catch {
    return null; // no instance ran during the application: nothing to split
  }
  return { seconds: Math.max(0, seconds), usd: Math.max(0, totalUsd - insideUsd) };
}

/** Prices an EMR run: a step from its cluster report (EC2, EMR fee, EBS), a job run on EMR Serverless from its bill. */
export class EmrRunCoster implements RunCoster {
  readonly #model: CostModel;

  constructor(catalog: PriceCatalog) {
    this.#model = createCostModel(catalog);
  }

  async cost(input: CostInput): Promise<RunCost> {
    const serverless = emrServerlessRunReportSchema.safeParse(input.clusterReport);
    if (serverless.success) return emrServerlessRunCost(serverless.data);
    const parsed = emrRunReportSchema.safeParse(input.clusterReport);
    if (!parsed.success)
      throw new ValidationError(
        'EMR_REPORT_MISSING',
        'an EMR run is priced from its cluster report (instances and their timelines); the run has none',
      );
    const breakdown = emrRunCost(this.#model, parsed.data);
    const overhead = emrRunOverhead(this.#model, parsed.data, input.profile.application, breakdown.total);
    return { ...costRecord(breakdown), ...(overhead ? { overhead } : {}) };
  }
}
