import type { RunProfile } from '../../../eventlog/run-profile.js';
import type { EmrServerlessPrice } from './emr-serverless-prices.js';

/** EMR Serverless worker sizes: vCPUs, and the memory (GB) each allows. */
const workerSizes = [
  { vcpu: 1, minGb: 2, maxGb: 8 },
  { vcpu: 2, minGb: 4, maxGb: 16 },
  { vcpu: 4, minGb: 8, maxGb: 30 },
  { vcpu: 8, minGb: 16, maxGb: 60 },
  { vcpu: 16, minGb: 32, maxGb: 120 },
] as const;
/** EMR Serverless' default driver and executor worker: 4 vCPU, 16 GB. */
const defaultWorker = { vcpu: 4, memoryGb: 16 };
/** A worker is billed for at least a minute. */
const minimumBilledHours = 1 / 60;
const mib = 1;
const units: Record<string, number> = { k: mib / 1024, m: mib, g: 1024 * mib, t: 1024 * 1024 * mib };

/** A Spark memory setting ("4g", "512m", "2048": MiB without a unit) in MiB; null when it is not one. */
export function sparkMemoryMib(value: string | undefined): number | null {
  const match = value
    ?.trim()
    .toLowerCase()
    .match(/^(\d+(?:\.\d+)?)([kmgt]?)b?$/);
  if (!match) return null;
  return Number(match[1]) * (units[match[2] || 'm'] ?? mib);
}

/**
 * The EMR Serverless worker a Spark process of `cores` cores and `memory` (+ overhead, Spark's default max(384
 * MiB, 10 %)) would take: the smallest worker size with as many vCPUs, its memory rounded up to whole GB within
 * what that size allows; without a memory setting, the default worker's 4 GB per vCPU.
 */
export function workerFor(
  cores: number,
  conf: Record<string, string>,
  role: 'executor' | 'driver',
): { vcpu: number; memoryGb: number; memoryFrom: string } {
  const size =
    workerSizes.find((entry) => entry.vcpu >= Math.max(1, cores)) ?? workerSizes[workerSizes.length - 1]!;
  const heap = sparkMemoryMib(conf[`spark.${role}.memory`]);
  if (heap === null)
    return {
      vcpu: size.vcpu,
      memoryGb: Math.min(
        size.maxGb,
        Math.max(size.minGb, (defaultWorker.memoryGb / defaultWorker.vcpu) * size.vcpu),
      ),
      memoryFrom: `no spark.${role}.memory in the event log: EMR Serverless' default of 4 GB per vCPU`,
    };
  const overhead =
    sparkMemoryMib(conf[`spark.${role}.memoryOverhead`]) ??
    Math.max(384, heap * Number(conf[`spark.${role}.memoryOverheadFactor`] ?? 0.1));
  const gb = Math.ceil((heap + overhead) / 1024);
  return {
    vcpu: size.vcpu,
    memoryGb: Math.min(size.maxGb, Math.max(size.minGb, gb)),
    memoryFrom: `spark.${role}.memory ${conf[`spark.${role}.memory`]} + ${Math.round(overhead)} MiB overhead`,
  };
}

export interface EmrServerlessEstimate {
  /** Dollars per run: low (executors billed only while busy), mid, high (billed for their whole life). */
  usd: { low: number; mid: number; high: number };
  vcpuHours: { low: number; high: number };
  memoryGbHours: { low: number; high: number };
  basis: string[];
}

/**
 * What a run of a job on EMR on EC2 would be billed on EMR Serverless, from its own event log: each executor
 * becomes a worker of its cores and memory, billed (one-minute minimum) for its life on the cluster (high: a
 * serverless job holds its executors as the cluster did) or only for its busy time, its task time over its cores
 * (low: dynamic allocation, on by default on EMR Serverless, releases idle workers); the driver is a worker for
 * the application's whole span. Mid is halfway. Ephemeral storage within the 20 GB each worker includes is
 * free, so none is counted (a job that spills or shuffles more per worker pays more). Null without an
 * application span or executors.
 */
export function emrServerlessEstimate(
  profile: RunProfile,
  price: EmrServerlessPrice,
): EmrServerlessEstimate | null {
  const { startTime, endTime } = profile.application;
  if (startTime === null || endTime === null || endTime <= startTime) return null;
  const conf = profile.sparkConf;
  const executors = profile.executors.timeline.filter(
    (executor) => executor.id !== 'driver' && executor.cores > 0,
  );
  if (executors.length === 0) return null;
  const hours = (ms: number) => Math.max(minimumBilledHours, ms / 3_600_000);
  const driverCores = Number(conf['spark.driver.cores'] ?? 0) || defaultWorker.vcpu;
  const driver = workerFor(driverCores, conf, 'driver');
  const driverHours = hours(endTime - startTime);
  let vcpuLow = driver.vcpu * driverHours;
  let vcpuHigh = vcpuLow;
  let memoryLow = driver.memoryGb * driverHours;
  let memoryHigh = memoryLow;
  let executorWorker = workerFor(executors[0]!.cores, conf, 'executor');
  for (const executor of executors) {
    executorWorker = workerFor(executor.cores, conf, 'executor');
    const added = executor.addedTime ?? startTime;
    const removed = Math.min(executor.removedTime ?? endTime, endTime);
    const life = hours(Math.max(0, removed - added));
    const busy = hours(executor.taskTimeMs / executor.cores);
    vcpuHigh += executorWorker.vcpu * life;
    memoryHigh += executorWorker.memoryGb * life;
    vcpuLow += executorWorker.vcpu * Math.min(busy, life);
    memoryLow += executorWorker.memoryGb * Math.min(busy, life);
  }
  const usdOf = (vcpu: number, memory: number) =>
    vcpu * price.usdPerVcpuHour + memory * price.usdPerMemoryGbHour;
  const low = usdOf(vcpuLow, memoryLow);
  const high = usdOf(vcpuHigh, memoryHigh);
  return {
    usd: { low, mid: (low + high) / 2, high },
    vcpuHours: { low: vcpuLow, high: vcpuHigh },
    memoryGbHours: { low: memoryLow, high: memoryHigh },
    basis: [
      `${executors.length} executor${executors.length === 1 ? '' : 's'} of the run's event log as ${executorWorker.vcpu}-vCPU, ${executorWorker.memoryGb}-GB workers (${executorWorker.memoryFrom}) and the driver as a ${driver.vcpu}-vCPU, ${driver.memoryGb}-GB worker (${driver.memoryFrom})`,
      `${vcpuLow.toFixed(2)}–${vcpuHigh.toFixed(2)} vCPU-hours and ${memoryLow.toFixed(1)}–${memoryHigh.toFixed(1)} GB-hours: executors billed only while busy (dynamic allocation releases idle workers) up to billed for their whole life on the cluster; mid is halfway`,
      `EMR Serverless at $${price.usdPerVcpuHour} per vCPU-hour and $${price.usdPerMemoryGbHour} per GB-hour (${price.region}, ${price.architecture === 'X86_64' ? 'x86' : 'ARM'}; ${price.source}, ${price.asOf}); no storage beyond the 20 GB each worker includes`,
    ],
  };
}
