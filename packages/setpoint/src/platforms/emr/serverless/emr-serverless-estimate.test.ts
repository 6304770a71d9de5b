import { costComponentSchema } from '@setpoint/api-contract';
import { describe, expect, it } from 'vitest';
import type { RunProfile } from '../../../eventlog/run-profile.js';
import { emrServerlessRunCost } from './emr-serverless-cost.js';
import { emrServerlessEstimate, sparkMemoryMib, workerFor } from './emr-serverless-estimate.js';
import { emrServerlessPrice } from './emr-serverless-prices.js';

const price = emrServerlessPrice('us-east-1')!;
const hour = 3_600_000;

function profile(
  executors: Array<{
    id: string;
    cores: number;
    addedTime: number | null;
    removedTime: number | null;
    taskTimeMs: number;
  }>,
  sparkConf: Record<string, string> = {},
): RunProfile {
  return {
    application: { startTime: 0, endTime: 2 * hour },
    sparkConf,
    executors: { timeline: executors },
  } as unknown as RunProfile;
}

describe('EMR Serverless prices', () => {
  it('are published data with their source, and absent (not guessed) for a region not listed', () => {
    expect(price).toMatchObject({
      usdPerVcpuHour: 0.052624,
      usdPerMemoryGbHour: 0.0057785,
      asOf: '2026-12-06',
    });
    expect(price.source).toMatch(/aws\.amazon\.com\/emr\/pricing/);
    expect(emrServerlessPrice('ap-south-2')).toBeNull();
  });
});

describe("a job run's cost from its billed utilization", () => {
  it('prices vCPU-, memory- and storage-hours as typed components billed by the cloud', () => {
    const cost = emrServerlessRunCost({ vCPUHour: 10, memoryGBHour: 40, storageGBHour: 100 }, price);
    for (const component of cost.components) costComponentSchema.parse(component);
    expect(cost.components.map((c) => [c.kind, c.unit, c.usd])).toEqual([
      ['compute', 'vCPU-hour', 0.52624],
      ['compute', 'GB-hour', 0.23114],
      ['storage', 'GB-hour', 0.0111],
    ]);
    expect(cost.totalUsd).toBeCloseTo(0.52624 + 0.23114 + 0.0111, 9);
  });
});

describe('the EMR Serverless estimate of an EMR on EC2 run, from its event log', () => {
  it('reads Spark memory settings in MiB and sizes workers as EMR Serverless allows', () => {
    expect(sparkMemoryMib('4g')).toBe(4096);
    expect(sparkMemoryMib('512m')).toBe(512);
    expect(sparkMemoryMib('2048')).toBe(2048);
    expect(sparkMemoryMib('lots')).toBeNull();
    // 3 cores take a 4-vCPU worker; 10g + 1g overhead (10 %) is 11 GB, within 8–30 GB
    expect(workerFor(3, { 'spark.executor.memory': '10g' }, 'executor')).toMatchObject({
      vcpu: 4,
      memoryGb: 11,
    });
    // without a memory setting: the default worker's 4 GB per vCPU
    expect(workerFor(8, {}, 'executor')).toMatchObject({ vcpu: 8, memoryGb: 32 });
  });

  it('bills executors from busy time (low) to whole life (high) and the driver for the whole run', () => {
    const estimate = emrServerlessEstimate(
      profile(
        [
          // two 4-core executors alive the whole 2 h, busy 1 h each (4 h of task time over 4 cores)
          { id: '1', cores: 4, addedTime: 0, removedTime: null, taskTimeMs: 4 * hour },
          { id: '2', cores: 4, addedTime: 0, removedTime: 2 * hour, taskTimeMs: 4 * hour },
        ],
        { 'spark.executor.memory': '14g', 'spark.driver.memory': '14g' },
      ),
      price,
    );
    // workers: 4 vCPU, ceil((14336 + 1433.6) / 1024) = 16 GB, driver the same for 2 h
    expect(estimate?.vcpuHours).toEqual({ low: 4 * 2 + 2 * 4 * 1, high: 4 * 2 + 2 * 4 * 2 });
    expect(estimate?.memoryGbHours).toEqual({ low: 16 * 2 + 2 * 16 * 1, high: 16 * 2 + 2 * 16 * 2 });
    const usd = (vcpu: number, gb: number) => vcpu * 0.052624 + gb * 0.0057785;
    expect(estimate?.usd.low).toBeCloseTo(usd(16, 64), 9);
    expect(estimate?.usd.high).toBeCloseTo(usd(24, 96), 9);
    expect(estimate?.usd.mid).toBeCloseTo((usd(16, 64) + usd(24, 96)) / 2, 9);
    expect(estimate?.basis.join('\n')).toMatch(/2 executors .* 4-vCPU, 16-GB workers/);
    expect(estimate?.basis.join('\n')).toMatch(/aws\.amazon\.com\/emr\/pricing/);
  });

  it('bills a worker at least a minute, and gives none without executors or an application span', () => {
    const brief = emrServerlessEstimate(
      profile([{ id: '1', cores: 4, addedTime: 0, removedTime: 1_000, taskTimeMs: 100 }]),
      price,
    );
    expect(brief?.vcpuHours.low).toBeCloseTo(4 * 2 + 4 / 60, 9);
    expect(emrServerlessEstimate(profile([]), price)).toBeNull();
    expect(
      emrServerlessEstimate(
        {
          ...profile([{ id: '1', cores: 4, addedTime: 0, removedTime: null, taskTimeMs: 1 }]),
          application: { startTime: null, endTime: null },
        } as unknown as RunProfile,
        price,
      ),
    ).toBeNull();
  });
});
