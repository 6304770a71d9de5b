import type { CostComponent } from '@setpoint/api-contract';
import { finishedJobRunStates, type JobRun } from '../api/emr-serverless-schema.js';
import type { EmrServerlessPrice } from './emr-serverless-prices.js';

/** What EMR Serverless billed a job run for (`JobRun.billedResourceUtilization`). */
export interface BilledResourceUtilization {
  vCPUHour: number;
  memoryGBHour: number;
  storageGBHour: number;
}

const round = (usd: number) => Math.round(usd * 1e9) / 1e9;

/**
 * A job run's cost from what EMR Serverless billed it: vCPU-hours, memory GB-hours and storage GB-hours (the
 * one-minute minimum per worker and the storage beyond 20 GB per worker are already in them, idle
 * pre-initialized workers are not) at the published prices. Three typed components, billed by the cloud (AWS
 * invoices EMR Serverless like EC2): the amount is exact once the utilization is billed, so low = high = usd.
 */
export function emrServerlessRunCost(
  billed: BilledResourceUtilization,
  price: EmrServerlessPrice,
): { totalUsd: number; components: CostComponent[] } {
  const line = (
    kind: CostComponent['kind'],
    description: string,
    quantity: number,
    unit: string,
    unitPrice: number,
  ): CostComponent => {
    const usd = round(quantity * unitPrice);
    return {
      kind,
      fee: null,
      platform: 'emr',
      cloud: 'aws',
      billed_by: 'cloud',
      description,
      quantity,
      unit,
      unit_price_usd: quantity > 0 ? unitPrice : null,
      usd,
      low_usd: usd,
      high_usd: usd,
      estimated_usd: null,
    };
  };
  const components = [
    line('compute', 'EMR Serverless vCPU', billed.vCPUHour, 'vCPU-hour', price.usdPerVcpuHour),
    line('compute', 'EMR Serverless memory', billed.memoryGBHour, 'GB-hour', price.usdPerMemoryGbHour),
    line(
      'storage',
      'EMR Serverless ephemeral storage',
      billed.storageGBHour,
      'GB-hour',
      price.usdPerStorageGbHour,
    ),
  ];
  return { totalUsd: round(components.reduce((sum, component) => sum + component.usd, 0)), components };
}

/**
 * A job run's cost, or why it has none yet: a run still going is not billed; a finished run whose billed
 * utilization is absent or zero (AWS bills at least a minute of a worker) is not costed, never $0; a region
 * without a published price says so.
 */
export function jobRunCost(
  run: Pick<JobRun, 'applicationId' | 'jobRunId' | 'state' | 'billedResourceUtilization'>,
  price: EmrServerlessPrice | null,
  region: string,
): { cost: ReturnType<typeof emrServerlessRunCost>; pending: null } | { cost: null; pending: string } {
  if (!finishedJobRunStates.some((state) => state === run.state))
    return { cost: null, pending: `job run ${run.jobRunId} is ${run.state}: it is billed once it ends` };
  const billed = run.billedResourceUtilization;
  if (!billed || billed.vCPUHour + billed.memoryGBHour + billed.storageGBHour <= 0)
    return {
      cost: null,
      pending: `job run ${run.jobRunId} of application ${run.applicationId} carries no billedResourceUtilization yet`,
    };
  if (!price)
    return {
      cost: null,
      pending: `no published EMR Serverless price for ${region} in Setpoint's price data`,
    };
  return { cost: emrServerlessRunCost(billed, price), pending: null };
}
