import { countOf } from '@setpoint/foundation/words';
import type { Finding, RunAnalysis, RunTotals, Severity, StageProfile } from '../run-profile.js';
import { formatDuration as ms, formatBytes as size } from './format-units.js';

export interface FindingInputs {
  stages: StageProfile[];
  totals: RunTotals;
  analysis: RunAnalysis;
}

const minute = 60_000;
const gib = 1024 ** 3;
const mib = 1024 ** 2;

/**
 * Rule-based findings in the spirit of Dr. Elephant's heuristics. Thresholds ignore short stages
 * and runs, where the ratios are noise rather than something worth changing.
 */
export function findFindings({ stages, totals, analysis }: FindingInputs): Finding[] {
  const findings: Finding[] = [];
  const ran = stages.filter((stage) => stage.tasks > 0);
  const cores = Math.max(1, analysis.coresObserved);

  const skewed = ran.filter((stage) => stage.taskDurationsMs.length >= 4 && stage.skewRatio >= 3);
  if (skewed.length > 0) {
    const worst = skewed.reduce((a, b) =>
      b.maxTaskMs - b.medianTaskMs > a.maxTaskMs - a.medianTaskMs ? b : a,
    );
    const lostMs = worst.maxTaskMs - worst.medianTaskMs;
    const severity: Severity = lostMs >= 10 * minute ? 'severe' : lostMs >= minute ? 'moderate' : 'low';
    findings.push({
      id: 'skew',
      severity,
      message: `${countOf(skewed.length, 'stage')} with skewed tasks; worst: stage ${worst.stageId} max task ${ms(worst.maxTaskMs)} vs median ${ms(worst.medianTaskMs)} (${worst.skewRatio.toFixed(1)}×)`,
      stageIds: skewed.map((stage) => stage.stageId),
    });
  }

  if (totals.executorRunTimeMs >= minute) {
    const gcShare = totals.jvmGcTimeMs / totals.executorRunTimeMs;
    if (gcShare >= 0.08) {
      findings.push({
        id: 'gc-pressure',
        severity: gcShare >= 0.2 ? 'severe' : gcShare >= 0.1 ? 'moderate' : 'low',
        message: `JVM garbage collection took ${(gcShare * 100).toFixed(1)}% of executor run time; executors may need more memory`,
      });
    }
  }

  if (totals.diskBytesSpilled > 0 || totals.memoryBytesSpilled > 0) {
    const spilling = ran.filter((stage) => stage.diskBytesSpilled > 0 || stage.memoryBytesSpilled > 0);
    findings.push({
      id: 'spill',
      severity:
        totals.diskBytesSpilled >= 10 * gib ? 'severe' : totals.diskBytesSpilled >= gib ? 'moderate' : 'low',
      message: `${countOf(spilling.length, 'stage')} spilled ${size(totals.diskBytesSpilled)} to disk (${size(totals.memoryBytesSpilled)} in memory); more executor memory or more partitions would avoid it`,
      stageIds: spilling.map((stage) => stage.stageId),
    });
  }

  const tiny = ran.filter((stage) => stage.taskDurationsMs.length >= 2 * cores && stage.medianTaskMs < 100);
  if (tiny.length > 0) {
    const tasks = tiny.reduce((sum, stage) => sum + stage.tasks, 0);
    findings.push({
      id: 'tiny-tasks',
      severity: tasks >= 10_000 ? 'moderate' : 'low',
      message: `${countOf(tiny.length, 'stage')} ran ${tasks} tasks with a median under 100 ms; scheduling overhead dominates them`,
      stageIds: tiny.map((stage) => stage.stageId),
    });
  }

  const fewPartitions = ran.filter(
    (stage) => stage.numTasks > 0 && stage.numTasks < cores / 2 && stage.maxTaskMs >= minute,
  );
  if (fewPartitions.length > 0) {
    findings.push({
      id: 'too-few-partitions',
      severity: 'moderate',
      message: `${countOf(fewPartitions.length, 'long stage')} ran fewer tasks than half the ${cores} cores (e.g. stage ${fewPartitions[0]!.stageId}: ${fewPartitions[0]!.numTasks} tasks); cores sat idle`,
      stageIds: fewPartitions.map((stage) => stage.stageId),
    });
  }

  const manyPartitions = ran.filter(
    (stage) =>
      stage.tasks >= 10 * cores &&
      stage.tasks >= 1000 &&
      stage.shuffleReadBytes > 0 &&
      stage.shuffleReadBytes / stage.tasks < mib,
  );
  if (manyPartitions.length > 0) {
    findings.push({
      id: 'too-many-partitions',
      severity: 'low',
      message: `${countOf(manyPartitions.length, 'shuffle stage')} read under 1 MiB per task over ≥ 1000 tasks; fewer shuffle partitions would do`,
      stageIds: manyPartitions.map((stage) => stage.stageId),
    });
  }

  if (totals.failedTasks > 0) {
    const share = totals.failedTasks / Math.max(1, totals.tasks);
    findings.push({
      id: 'failed-tasks',
      severity: share >= 0.1 ? 'severe' : share >= 0.01 ? 'moderate' : 'low',
      message: `${totals.failedTasks} of ${totals.tasks} tasks failed (${(share * 100).toFixed(1)}%)${totals.failedJobs > 0 ? `; ${countOf(totals.failedJobs, 'job')} failed` : ''}`,
    });
  }

  if (analysis.wallTimeMs >= minute && analysis.coreHoursAvailable > 0 && analysis.utilization < 0.4) {
    findings.push({
      id: 'idle-executors',
      severity: analysis.utilization < 0.15 ? 'severe' : 'moderate',
      message: `core time in tasks ${(analysis.utilization * 100).toFixed(0)}% of the ${analysis.coreHoursAvailable.toFixed(2)} core-hours available; fewer or smaller executors would do`,
    });
  }

  if (analysis.wallTimeMs >= minute) {
    const driverShare = analysis.driverTimeMs / analysis.wallTimeMs;
    if (driverShare >= 0.3) {
      findings.push({
        id: 'driver-bound',
        severity: driverShare >= 0.6 ? 'severe' : 'moderate',
        message: `no job was running for ${(driverShare * 100).toFixed(0)}% of the run (${ms(analysis.driverTimeMs)}); more executors will not shorten that part`,
      });
    }
  }
  return findings;
}
