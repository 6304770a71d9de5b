import type { NewClusterLike } from '@setpoint/databricks-emulator/physics/cluster-spec';
import { type SimulatedRun, simulateRun } from '@setpoint/databricks-emulator/physics/simulate-run';
import type { Workload } from '@setpoint/databricks-emulator/workloads/schema';
import {
  findShippedWorkload,
  shippedWorkloads,
} from '@setpoint/databricks-emulator/workloads/shipped-workloads';
import { describe, expect, it } from 'vitest';

function workload(name: string): Workload {
  const found = findShippedWorkload(name);
  if (!found) throw new Error(`no shipped workload ${name}`);
  return found;
}

function cluster(nodeTypeId: string, workers: number, extra: Partial<NewClusterLike> = {}): NewClusterLike {
  return {
    spark_version: '15.4.x-scala2.12',
    node_type_id: nodeTypeId,
    num_workers: workers,
    aws_attributes: { availability: 'ON_DEMAND', first_on_demand: 1 },
    ...extra,
  };
}

/** Median of several run indices, so that the 3 % run-to-run noise does not decide a comparison. */
function medianRun(
  name: string,
  spec: NewClusterLike,
  runs = 5,
): { runtimeMs: number; costUsd: number; outcomes: string[] } {
  const results: SimulatedRun[] = Array.from({ length: runs }, (_, index) =>
    simulateRun(workload(name), spec, 11, index, { weeksElapsed: 0 }),
  );
  const middle = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  return {
    runtimeMs: middle(results.map((run) => run.runtimeMs)),
    costUsd: middle(results.map((run) => run.cost.totalUsd)),
    outcomes: results.map((run) => run.outcome),
  };
}

describe('simulateRun', () => {
  it('is deterministic for the same seed and run index, and varies with the run index', () => {
    const spec = cluster('m5.xlarge', 4);
    const first = simulateRun(workload('join-heavy-etl'), spec, 3, 2);
    const again = simulateRun(workload('join-heavy-etl'), spec, 3, 2);
    const other = simulateRun(workload('join-heavy-etl'), spec, 3, 5, { weeksElapsed: 2 / 7 });
    expect(again.runtimeMs).toBe(first.runtimeMs);
    expect(again.eventLogLines).toEqual(first.eventLogLines);
    expect(other.runtimeMs).not.toBe(first.runtimeMs);
  });

  it('has run-to-run noise of a few percent', () => {
    const spec = cluster('m5.xlarge', 8);
    const runtimes = Array.from(
      { length: 30 },
      (_, index) =>
        simulateRun(workload('photon-friendly-sql'), spec, 5, index, { weeksElapsed: 0 }).runtimeMs,
    );
    const mean = runtimes.reduce((sum, value) => sum + value, 0) / runtimes.length;
    const deviation =
      Math.sqrt(runtimes.reduce((sum, value) => sum + (value - mean) ** 2, 0) / runtimes.length) / mean;
    expect(deviation).toBeGreaterThan(0.01);
    expect(deviation).toBeLessThan(0.06);
  });

  it('grows the data 5% a week for the growing job', () => {
    const spec = cluster('r5d.xlarge', 6);
    const start = simulateRun(workload('growing-events'), spec, 1, 0, { weeksElapsed: 0, noise: 0 });
    const later = simulateRun(workload('growing-events'), spec, 1, 0, { weeksElapsed: 10, noise: 0 });
    expect(later.timeline.dataScale).toBeCloseTo(1.05 ** 10, 6);
    expect(later.runtimeMs / start.runtimeMs).toBeGreaterThan(1.3);
  });

  it('changes the profile after the scripted code change', () => {
    const spec = cluster('m5d.xlarge', 6);
    const changeAt = workload('daily-aggregation').codeChange?.fromRunIndex ?? 0;
    const before = simulateRun(workload('daily-aggregation'), spec, 1, changeAt - 1, {
      weeksElapsed: 0,
      noise: 0,
    });
    const after = simulateRun(workload('daily-aggregation'), spec, 1, changeAt, {
      weeksElapsed: 0,
      noise: 0,
    });
    expect(after.runtimeMs / before.runtimeMs).toBeGreaterThan(1.2);
  });

  it('loses spot nodes, reports NODES_LOST and re-executes the lost tasks', () => {
    const spec = cluster('r5.xlarge', 16, { aws_attributes: { availability: 'SPOT', first_on_demand: 1 } });
    const withLoss = Array.from({ length: 40 }, (_, index) =>
      simulateRun(workload('cpu-bound-ml'), spec, 9, index),
    ).find((run) => run.timeline.tasks.some((task) => task.end === 'ExecutorLost'));
    expect(withLoss).toBeDefined();
    expect(withLoss!.timeline.clusterEvents.some((event) => event.type === 'NODES_LOST')).toBe(true);
    const lostTasks = withLoss!.timeline.tasks.filter((task) => task.end === 'ExecutorLost');
    for (const lost of lostTasks) {
      const retried = withLoss!.timeline.tasks.some(
        (task) => task.stageId === lost.stageId && task.index === lost.index && task.attempt > lost.attempt,
      );
      expect(retried).toBe(true);
    }
    expect(withLoss!.eventLogLines.some((line) => line.includes('"Reason":"ExecutorLostFailure"'))).toBe(
      true,
    );
    expect(
      withLoss!.eventLogLines.some((line) => line.includes('"Event":"SparkListenerExecutorRemoved"')),
    ).toBe(true);
  });

  it('falls back to on-demand for part of a spot request only when fallback is allowed', () => {
    const workers = (availability: string) =>
      simulateRun(
        workload('daily-aggregation'),
        cluster('m5.xlarge', 40, { aws_attributes: { availability, first_on_demand: 1 } }),
        1,
        0,
      ).timeline.executors.slice(0, 40);
    const withFallback = workers('SPOT_WITH_FALLBACK').filter((executor) => !executor.spot).length;
    expect(withFallback).toBeGreaterThan(0);
    expect(withFallback).toBeLessThan(20);
    expect(workers('SPOT').every((executor) => executor.spot)).toBe(true);
  });

  it('ramps an autoscaling cluster up with RESIZING and UPSIZE_COMPLETED events', () => {
    const run = simulateRun(
      workload('io-bound-scan'),
      cluster('m5.xlarge', 0, { autoscale: { min_workers: 2, max_workers: 16 } }),
      1,
      0,
    );
    const types = run.timeline.clusterEvents.map((event) => event.type);
    expect(types).toContain('RESIZING');
    expect(types.filter((type) => type === 'UPSIZE_COMPLETED').length).toBeGreaterThanOrEqual(2);
    expect(run.timeline.executors.length).toBe(16);
  });

  it('downsizes an autoscaling cluster when stages shrink and stops billing the removed workers', () => {
    const autoscale = cluster('m5.xlarge', 0, { autoscale: { min_workers: 2, max_workers: 16 } });
    const run = simulateRun(workload('cpu-bound-ml'), autoscale, 1, 0);
    const downsizes = run.timeline.clusterEvents.filter(
      (event) =>
        event.type === 'RESIZING' &&
        (event.details.target_num_workers as number) < (event.details.current_num_workers as number),
    );
    expect(downsizes.length).toBeGreaterThan(0);
    const decommissioned = run.timeline.executors.filter((executor) =>
      executor.removedReason?.includes('downsized'),
    );
    expect(decommissioned.length).toBeGreaterThan(0);
    for (const executor of decommissioned)
      expect(executor.removedMs!).toBeLessThan(run.timeline.terminatingMs);
    const workerHours = run.timeline.usage.filter((usage) => usage.role === 'worker');
    const billedToEnd = workerHours.filter((usage) => usage.toMs === run.timeline.terminatedMs).length;
    expect(billedToEnd).toBeLessThan(workerHours.length);
    expect(run.eventLogLines.some((line) => line.includes('downsized by autoscaling'))).toBe(true);
  });

  it('writes the Databricks header first with the int64 SparkContext id as raw digits', () => {
    const run = simulateRun(workload('skewed-join'), cluster('i3.xlarge', 4), 1, 0, {
      identity: { sparkContextId: '8880912756278443690' },
    });
    expect(run.eventLogLines[0]).toMatch(
      /^\{"Event":"DBCEventLoggingListenerMetadata".*"SparkContext Id":8880912756278443690\}$/,
    );
    expect(JSON.parse(run.eventLogLines[1]!)).toEqual({
      Event: 'SparkListenerLogStart',
      'Spark Version': '3.5.0',
    });
    const environment = run.eventLogLines
      .map((line) => JSON.parse(line))
      .find((event) => event.Event === 'SparkListenerEnvironmentUpdate');
    expect(environment['Spark Properties']['spark.databricks.clusterUsageTags.clusterNodeType']).toBe(
      'i3.xlarge',
    );
    expect(environment['Spark Properties']['spark.databricks.clusterUsageTags.clusterWorkers']).toBe('4');
  });
});

/**
 * The grid: each cluster change must move runtime and cost the way the physics says, for several
 * workloads at once.
 */
describe('configuration grid', () => {
  const scalable = ['join-heavy-etl', 'io-bound-scan', 'cpu-bound-ml', 'photon-friendly-sql'];

  it.each(scalable)('%s runs faster on more workers', (name) => {
    const small = medianRun(name, cluster('m5.xlarge', 4));
    const large = medianRun(name, cluster('m5.xlarge', 16));
    expect(large.runtimeMs).toBeLessThan(small.runtimeMs * 0.6);
  });

  it('many small jobs barely gain from more workers', () => {
    const small = medianRun('many-small-jobs', cluster('m5.xlarge', 4));
    const large = medianRun('many-small-jobs', cluster('m5.xlarge', 16));
    expect(large.runtimeMs).toBeGreaterThan(small.runtimeMs * 0.85);
    expect(large.costUsd).toBeGreaterThan(small.costUsd * 2);
  });

  // nightly-rollup runs about 13 hours on this cluster: at a few interruptions per hundred node-hours its
  // 38-minute UDF tasks are lost and redone often enough to spend the discount (tested below)
  const halfDayRuns = new Set(['nightly-rollup']);
  const shorterRuns = shippedWorkloads.map((item) => item.name).filter((name) => !halfDayRuns.has(name));

  it.each(shorterRuns)('%s is cheaper on spot than on demand', (name) => {
    const onDemand = medianRun(name, cluster('r5d.xlarge', 8));
    const spot = medianRun(
      name,
      cluster('r5d.xlarge', 8, {
        aws_attributes: { availability: 'SPOT_WITH_FALLBACK', first_on_demand: 1 },
      }),
    );
    expect(spot.costUsd).toBeLessThan(onDemand.costUsd * 0.9);
  });

  it('a half-day run on spot meets interruptions that make it run longer than on demand', () => {
    const onDemand = medianRun('nightly-rollup', cluster('r5d.xlarge', 8));
    const spot = medianRun(
      'nightly-rollup',
      cluster('r5d.xlarge', 8, {
        aws_attributes: { availability: 'SPOT_WITH_FALLBACK', first_on_demand: 1 },
      }),
    );
    expect(onDemand.runtimeMs).toBeGreaterThan(10 * 3_600_000);
    expect(spot.runtimeMs).toBeGreaterThan(onDemand.runtimeMs * 1.1);
  });

  it('Photon makes the Photon-friendly job about three times faster in execution and cheaper', () => {
    const standard = medianRun('photon-friendly-sql', cluster('m5.xlarge', 8));
    const photon = medianRun('photon-friendly-sql', cluster('m5.xlarge', 8, { runtime_engine: 'PHOTON' }));
    expect(photon.runtimeMs).toBeLessThan(standard.runtimeMs * 0.55);
    expect(photon.costUsd).toBeLessThan(standard.costUsd);
  });

  it('Photon does not speed up the CPU-bound Python job, so it only costs more', () => {
    const standard = medianRun('cpu-bound-ml', cluster('m5.xlarge', 8));
    const photon = medianRun('cpu-bound-ml', cluster('m5.xlarge', 8, { runtime_engine: 'PHOTON' }));
    expect(photon.runtimeMs).toBeGreaterThan(standard.runtimeMs * 0.95);
    expect(photon.costUsd).toBeGreaterThan(standard.costUsd * 1.3);
  });

  it('the compute-optimized family wins on the CPU-bound job', () => {
    const general = medianRun('cpu-bound-ml', cluster('m5.xlarge', 8));
    const compute = medianRun('cpu-bound-ml', cluster('c5.xlarge', 8));
    expect(compute.runtimeMs).toBeLessThan(general.runtimeMs * 0.95);
  });

  it('the spill-heavy job fails with OOM below the memory threshold, spills in the middle, and is fast with memory', () => {
    const low = medianRun('spill-heavy-sort', cluster('c5.xlarge', 8));
    const middle = medianRun('spill-heavy-sort', cluster('m5.xlarge', 8));
    const high = medianRun('spill-heavy-sort', cluster('r5d.xlarge', 8));
    expect(low.outcomes.every((outcome) => outcome === 'FAILED')).toBe(true);
    expect(middle.outcomes.every((outcome) => outcome === 'SUCCESS')).toBe(true);
    expect(high.outcomes.every((outcome) => outcome === 'SUCCESS')).toBe(true);
    expect(high.runtimeMs).toBeLessThan(middle.runtimeMs * 0.6);
    const failed = simulateRun(workload('spill-heavy-sort'), cluster('c5.xlarge', 8), 11, 0);
    expect(failed.failureMessage).toMatch(/OutOfMemoryError/);
    const spilled = simulateRun(workload('spill-heavy-sort'), cluster('m5.xlarge', 8), 11, 0);
    expect(spilled.timeline.tasks.some((task) => task.metrics.diskSpilled > 0)).toBe(true);
  });

  it('spill costs more on a throughput-optimized HDD volume than on SSD', () => {
    const ssd = medianRun(
      'spill-heavy-sort',
      cluster('m5.xlarge', 8, {
        aws_attributes: {
          availability: 'ON_DEMAND',
          ebs_volume_type: 'GENERAL_PURPOSE_SSD',
          ebs_volume_count: 1,
          ebs_volume_size: 100,
        },
      }),
    );
    const hdd = medianRun(
      'spill-heavy-sort',
      cluster('m5.xlarge', 8, {
        aws_attributes: {
          availability: 'ON_DEMAND',
          ebs_volume_type: 'THROUGHPUT_OPTIMIZED_HDD',
          ebs_volume_count: 1,
          ebs_volume_size: 500,
        },
      }),
    );
    expect(hdd.runtimeMs).toBeGreaterThan(ssd.runtimeMs * 1.2);
  });
});
