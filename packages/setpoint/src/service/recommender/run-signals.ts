import { formatBytes } from '../../eventlog/analysis/format-units.js';
import { coreTimeOnCpu } from '../../eventlog/analysis/run-analysis.js';
import type { ModelProfile } from '../../eventlog/model-profile.js';
import { peakMemoryGibOf } from './run-evidence.js';

/**
 * What one run's event log says about the resources it was short of or wasted, before any learning:
 * core time on CPU (executor CPU time over the core-seconds the executors held), spill, the share of task
 * time in garbage collection and in waiting for shuffle blocks, and the peak execution memory. The first
 * recommendation uses them (named filters and words in the explanation), not only the learned model.
 */
export interface RunSignals {
  /** Core time on CPU: executor CPU time ÷ core-seconds available, 0..1 (null when the log has no executor cores). */
  coreTimeOnCpu: number | null;
  memorySpilledBytes: number;
  diskSpilledBytes: number;
  /** JVM GC time ÷ executor run time (null with no task time). */
  gcShare: number | null;
  /** Shuffle fetch wait ÷ executor run time (null with no task time). */
  shuffleFetchWaitShare: number | null;
  peakExecutionMemoryGib: number;
}

/** A run whose tasks spent at least this share of their time in GC was short of memory per core. */
export const highGcShare = 0.1;
/** Below this share of core time on CPU the cores mostly waited: fewer or smaller cores are plausible. */
export const lowCoreTimeOnCpu = 0.3;
/** At least this share of task time waiting for shuffle blocks: the run is network-bound. */
export const highShuffleFetchWaitShare = 0.2;

export function runSignalsOf(
  profile: Pick<ModelProfile, 'totals' | 'analysis' | 'executors' | 'stages'>,
): RunSignals {
  const { totals } = profile;
  const taskMs = totals.executorRunTimeMs;
  return {
    coreTimeOnCpu: coreTimeOnCpu(profile),
    memorySpilledBytes: totals.memoryBytesSpilled,
    diskSpilledBytes: totals.diskBytesSpilled,
    gcShare: taskMs > 0 ? totals.jvmGcTimeMs / taskMs : null,
    shuffleFetchWaitShare: taskMs > 0 ? totals.shuffleFetchWaitTimeMs / taskMs : null,
    peakExecutionMemoryGib: peakMemoryGibOf(profile),
  };
}

const percent = (share: number) => `${Math.round(share * 100)}%`;

/**
 * The signals in words, each with what it means for the choice:
 * "core time on CPU 18% (low: fewer or smaller cores are plausible); spill 2.0 GiB to disk (…); …",
 * naming the run as a person knows it (`runName`).
 */
export function describeSignals(run: string, signals: RunSignals): string {
  const parts: string[] = [];
  if (signals.coreTimeOnCpu !== null) {
    parts.push(
      `core time on CPU ${percent(signals.coreTimeOnCpu)}${
        signals.coreTimeOnCpu < lowCoreTimeOnCpu ? ' (low: fewer or smaller cores are plausible)' : ''
      }`,
    );
  }
  parts.push(
    signals.diskSpilledBytes > 0
      ? `spill ${formatBytes(signals.diskSpilledBytes)} to disk (less memory per core is left out)`
      : 'no spill',
  );
  if (signals.gcShare !== null) {
    parts.push(
      `GC ${percent(signals.gcShare)} of task time${
        signals.gcShare >= highGcShare ? ' (high: less memory per core is left out)' : ''
      }`,
    );
  }
  if (signals.shuffleFetchWaitShare !== null) {
    parts.push(
      `shuffle fetch wait ${percent(signals.shuffleFetchWaitShare)} of task time${
        signals.shuffleFetchWaitShare >= highShuffleFetchWaitShare
          ? ' (network-bound: more, smaller nodes are left out)'
          : ''
      }`,
    );
  }
  parts.push(`peak execution memory ${signals.peakExecutionMemoryGib.toFixed(1)} GiB`);
  return `signals of ${run}: ${parts.join('; ')}`;
}
