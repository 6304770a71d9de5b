import { ValidationError } from '@setpoint/foundation/errors';
import { type CostModel, createCostModel } from '../../../cost/cost-model.js';
import { runCost, type TimelineCost } from '../../../cost/run-cost.js';
import type { PriceCatalog } from '../../../pricing/price-catalog.js';
import type { CostInput, RunCoster } from '../../../service/runs/run-analysis.js';
import type { RunCost } from '../../../service/runs/run-records.js';
import { type EmrRunReport, emrRunReportSchema } from '../runs/emr-run-report.js';
import { emrClusterTimeline } from './emr-timeline.js';

/** An EMR run's cost: EC2 by instance and market, the EMR fee per instance-hour and EBS, per second, one-minute minimum. */
export function emrRunCost(model: CostModel, report: EmrRunReport): TimelineCost {
  return runCost(model, emrClusterTimeline(report));
}

export class EmrRunCoster implements RunCoster {
  readonly #model: CostModel;

  constructor(catalog: PriceCatalog) {
    this.#model = createCostModel(catalog);
  }

  async cost(input: CostInput): Promise<RunCost> {
    const parsed = emrRunReportSchema.safeParse(input.clusterReport);
    if (!parsed.success)
      throw new ValidationError(
        'EMR_REPORT_MISSING',
        'an EMR run is priced from its cluster report (instances and their timelines); the run has none',
      );
    const breakdown = emrRunCost(this.#model, parsed.data);
    return {
      currency: 'USD',
      totalUsd: breakdown.total,
      lines: [
        { item: 'EC2 compute', usd: breakdown.cloud.compute },
        { item: 'EBS storage', usd: breakdown.cloud.storage },
        { item: 'EMR fee', usd: breakdown.cloud.emrFee },
        { item: 'total low', usd: breakdown.low },
        { item: 'total high', usd: breakdown.high },
      ],
    };
  }
}
