import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { driverHeapBytes } from '@setpoint/databricks-emulator/physics/driver-model';
import { findNodeType } from '@setpoint/databricks-emulator/physics/node-types';
import { simulateRun } from '@setpoint/databricks-emulator/physics/simulate-run';
import { type WorkloadInput, workloadSchema } from '@setpoint/databricks-emulator/workloads/schema';
import { analyzeEventLog } from 'setpoint/eventlog/index';
import { afterAll, describe, expect, it } from 'vitest';

const gib = 1024 ** 3;
const scratch = mkdtempSync(join(tmpdir(), 'setpoint-driver-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A scan whose matches are collected to the driver: `collectGib` of serialized results in one stage. */
function collecting(collectGib: number) {
  const input: WorkloadInput = {
    name: 'collect-matches',
    jobs: [
      {
        name: 'collect matches',
        stages: [
          { id: 0, name: 'scan and filter', tasks: 64, cpuSecondsPerTask: 1, inputBytes: 8 * gib },
          {
            id: 1,
            name: 'collect',
            parents: [0],
            tasks: 16,
            cpuSecondsPerTask: 0.5,
            collectBytes: collectGib * gib,
          },
        ],
      },
      { name: 'write report', stages: [{ id: 0, name: 'write', tasks: 8, cpuSecondsPerTask: 1 }] },
    ],
  };
  return workloadSchema.parse(input);
}

function cluster(driver: string, sparkConf: Record<string, string> = {}) {
  return {
    spark_version: '15.4.x-scala2.12',
    node_type_id: 'm5d.xlarge',
    driver_node_type_id: driver,
    num_workers: 4,
    aws_attributes: { availability: 'ON_DEMAND' },
    spark_conf: { 'spark.driver.maxResultSize': '0', ...sparkConf },
  };
}

async function profileOf(lines: string[], name: string) {
  const path = join(scratch, name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return analyzeEventLog(path);
}

describe('the driver in the emulator', () => {
  it('fails a run whose collected results do not fit the driver’s heap, and one above spark.driver.maxResultSize', () => {
    // m5d.xlarge: 16 GiB, an 8.3 GiB heap; 4 GiB of results are about 9 GiB of live objects
    const small = simulateRun(collecting(4), cluster('m5d.xlarge'), 1, 0, { weeksElapsed: 0 });
    expect(small.outcome).toBe('FAILED');
    expect(small.failureMessage).toMatch(/OutOfMemoryError: Java heap space/);
    const large = simulateRun(collecting(4), cluster('r5d.xlarge'), 1, 0, { weeksElapsed: 0 });
    expect(large.outcome).toBe('SUCCESS');
    // Spark's default limit is 1g: the same collect without raising it aborts the job
    const limited = simulateRun(
      collecting(2),
      cluster('r5d.xlarge', { 'spark.driver.maxResultSize': '1g' }),
      1,
      0,
      { weeksElapsed: 0 },
    );
    expect(limited.outcome).toBe('FAILED');
    expect(limited.failureMessage).toMatch(
      /Total size of serialized results of 16 tasks \(\d+\.\d MiB\) is bigger than spark\.driver\.maxResultSize \(1024\.0 MiB\)/,
    );
  });

  it('makes a collect near the driver’s heap slow (GC) and a roomy driver fast, in driver-only time', async () => {
    const tight = simulateRun(collecting(3), cluster('m5d.xlarge'), 1, 0, { weeksElapsed: 0 });
    const roomy = simulateRun(collecting(3), cluster('r5d.xlarge'), 1, 0, { weeksElapsed: 0 });
    expect(tight.outcome).toBe('SUCCESS');
    expect(roomy.outcome).toBe('SUCCESS');
    expect(tight.runtimeMs).toBeGreaterThan(roomy.runtimeMs + 20_000);
    const tightProfile = await profileOf(tight.eventLogLines, 'tight');
    const roomyProfile = await profileOf(roomy.eventLogLines, 'roomy');
    expect(tightProfile.analysis.driverTimeMs).toBeGreaterThan(roomyProfile.analysis.driverTimeMs + 20_000);
    // results are in the log whether or not the driver's peaks are
    expect(tightProfile.driver?.largestStageResultBytes).toBeGreaterThan(2.9 * gib);
    expect(tightProfile.driver?.peakJvmHeapBytes).toBeNull();
  });

  it('writes the driver’s memory peaks only with spark.eventLog.logStageExecutorMetrics, as Spark does', async () => {
    const heap = driverHeapBytes(findNodeType('r5d.xlarge')!);
    const logged = simulateRun(
      collecting(3),
      cluster('r5d.xlarge', { 'spark.eventLog.logStageExecutorMetrics': 'true' }),
      1,
      0,
      { weeksElapsed: 0 },
    );
    const profile = await profileOf(logged.eventLogLines, 'logged');
    expect(profile.driver?.heapBytes).toBeCloseTo(heap, -3);
    expect(profile.driver?.metricEvents).toBe(logged.timeline.stages.length);
    // the collect's stage: the driver's base plus the results deserialized (about twice their size)
    const peak = Math.max(...logged.timeline.stages.map((stage) => stage.driver.heapBytes));
    expect(profile.driver?.peakJvmHeapBytes).toBe(peak);
    expect(peak).toBeGreaterThan(1 * gib + 2 * 2.9 * gib);
    expect(profile.driver?.gcTimeMs).toBeGreaterThan(0);
    const quiet = await profileOf(
      simulateRun(collecting(3), cluster('r5d.xlarge'), 1, 0, { weeksElapsed: 0 }).eventLogLines,
      'quiet',
    );
    expect(quiet.driver?.metricEvents).toBe(0);
    expect(quiet.driver?.peakJvmHeapBytes).toBeNull();
    expect(quiet.driver?.heapBytes).toBeCloseTo(heap, -3);
  });
});
