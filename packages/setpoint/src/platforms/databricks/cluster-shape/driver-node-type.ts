import type { ModelProfile } from '../../../eventlog/model-profile.js';
import type { DriverEvidence } from '../../../eventlog/run-profile.js';
import type { InstanceTypeEntry } from '../../../pricing/schema.js';
import { needsAttachedStorage } from './ebs-storage.js';

/** What a run's event log says of its driver, with the run's span and the memory settings it ran with. */
export interface DriverSignals {
  /** Absent in profiles stored before the driver was read (and in agentless ones). */
  evidence: DriverEvidence | undefined;
  /** The run's wall time: the driver's GC is weighed against it. */
  wallTimeMs: number;
}

/** A run's driver signals as its profile holds them. */
export function driverSignalsOf(profile: Pick<ModelProfile, 'driver' | 'analysis'>): DriverSignals {
  return { evidence: profile.driver, wallTimeMs: profile.analysis.wallTimeMs };
}

/** A driver node type Setpoint changes, and why (for the cluster's description). */
export interface DriverChange {
  change: 'shrink' | 'grow';
  basis: string;
}

export type DriverDecision =
  | { nodeType: string; change: DriverChange }
  /** `reason`: why the driver stays, when the run could not say (else null: it fits). */
  | { nodeType: string; change: null; reason: string | null };

const gib = 1024 ** 3;
/**
 * Room over the driver's peak: Spark samples the heap at stage ends and heartbeats (every 10 s), so the
 * true peak between samples is higher; a JVM whose live data nears its maximum heap spends its time in
 * garbage collection; and a nightly job's data grows. A driver is never sized below its peak × this.
 */
export const driverHeadroom = 1.5;
/** A driver that used this share of its heap, or more, ran near its limit: it grows. */
export const nearLimitShare = 0.8;
/** A driver whose JVM spent this share of the run's wall time in garbage collection was memory-bound. */
export const driverGcShare = 0.1;

/**
 * The driver node type from the driver's own signals in the based-on run:
 * - grow, when the driver ran near its heap (its peak or one stage's collected results ≥ 80% of it) or its
 *   JVM spent ≥ 10% of the run in GC: to the cheapest type whose heap holds the peak × 1.5;
 * - shrink, only when the log carries the driver's heap peaks: to the cheapest type (cheaper than the one it
 *   ran) whose heap holds the peak × 1.5 — never below what it used;
 * - keep, otherwise, saying why when the log lacks the signal.
 * Cores are never fewer than the driver ran with: the event log has no driver CPU time (Spark measures CPU
 * per task, and the driver runs none), so a smaller core count could not be shown to suffice.
 * Candidate types: `offered` (priced, allowed by the project), of the driver's own architecture, with local
 * disks when the driver had them and the cluster brings no volumes of its own. `hourlyCost` is the cluster's
 * expected price per hour with that driver (null: not priced).
 */
export function driverNodeTypeFor(input: {
  current: string;
  signals: DriverSignals;
  offered: readonly InstanceTypeEntry[];
  bringsOwnStorage: boolean;
  hourlyCost: (driverNodeType: string) => number | null;
}): DriverDecision {
  const { current, signals } = input;
  const keep = (reason: string | null): DriverDecision => ({ nodeType: current, change: null, reason });
  const evidence = signals.evidence;
  const currentEntry = input.offered.find((entry) => entry.instanceType === current);
  const missing = missingDriverSignal(evidence);
  if (missing !== null || !evidence || evidence.heapBytes === null) return keep(missing);
  if (!currentEntry) return keep(`${current} is not among the node types Setpoint may choose`);
  const heapBytes = evidence.heapBytes;
  // Databricks sizes a driver's heap from its node's memory: the same share on any node type
  const heapShare = heapBytes / (currentEntry.memoryGib * gib);
  const heapOf = (entry: InstanceTypeEntry) => heapShare * entry.memoryGib * gib;
  const used = Math.max(evidence.peakJvmHeapBytes ?? 0, evidence.largestStageResultBytes);
  const gcShare =
    evidence.gcTimeMs !== null && signals.wallTimeMs > 0 ? evidence.gcTimeMs / signals.wallTimeMs : 0;
  const usedWords =
    evidence.peakJvmHeapBytes !== null && evidence.peakJvmHeapBytes >= evidence.largestStageResultBytes
      ? `the driver's heap peaked at ${gibText(used)} of ${gibText(heapBytes)}`
      : `one stage sent the driver ${gibText(used)} of results of its ${gibText(heapBytes)} heap`;
  const needed = used * driverHeadroom;
  const fits = input.offered.filter(
    (entry) =>
      entry.arch === currentEntry.arch &&
      entry.vcpus >= currentEntry.vcpus &&
      heapOf(entry) >= needed &&
      (input.bringsOwnStorage || needsAttachedStorage(entry) === needsAttachedStorage(currentEntry)),
  );
  const cheapest = cheapestOf(fits, input.hourlyCost);
  const pressed = used >= nearLimitShare * heapBytes || gcShare >= driverGcShare;
  if (pressed) {
    const why =
      gcShare >= driverGcShare && used < nearLimitShare * heapBytes
        ? `its JVM spent ${(gcShare * 100).toFixed(0)}% of the run in garbage collection`
        : `${usedWords} (${((used / heapBytes) * 100).toFixed(0)}% of it)`;
    const larger = cheapestOf(
      fits.filter((entry) => heapOf(entry) > heapBytes),
      input.hourlyCost,
    );
    if (!larger) return keep(`${why}, and no larger node type Setpoint may choose holds ${gibText(needed)}`);
    return {
      nodeType: larger.instanceType,
      change: {
        change: 'grow',
        basis: `driver ${current} → ${larger.instanceType}: ${why}; its ${gibText(heapOf(larger))} heap holds ×${driverHeadroom} that`,
      },
    };
  }
  if (evidence.peakJvmHeapBytes === null) return keep(null);
  const currentCost = input.hourlyCost(current);
  if (!cheapest || cheapest.instanceType === current || currentCost === null) return keep(null);
  const cost = input.hourlyCost(cheapest.instanceType);
  if (cost === null || cost >= currentCost) return keep(null);
  return {
    nodeType: cheapest.instanceType,
    change: {
      change: 'shrink',
      basis: `driver ${current} → ${cheapest.instanceType}: ${usedWords}; ${gibText(heapOf(cheapest))} holds it with ×${driverHeadroom} room on ${cheapest.vcpus} cores (not fewer than it ran with)`,
    },
  };
}

/**
 * Why a run cannot size its driver, or null when it can: the driver's memory limit must be in the log, and
 * a change needs its heap peaks (written only with `spark.eventLog.logStageExecutorMetrics=true`) unless one
 * stage's collected results alone came near the limit.
 */
export function missingDriverSignal(evidence: DriverEvidence | undefined): string | null {
  if (!evidence) return 'the run was read before Setpoint read the driver from event logs';
  if (evidence.heapBytes === null) return 'the event log does not say how much memory the driver had';
  if (evidence.peakJvmHeapBytes !== null) return null;
  if (evidence.largestStageResultBytes >= nearLimitShare * evidence.heapBytes) return null;
  return 'the event log has no driver memory peaks: spark.eventLog.logStageExecutorMetrics is off';
}

function cheapestOf(
  entries: readonly InstanceTypeEntry[],
  hourlyCost: (nodeType: string) => number | null,
): InstanceTypeEntry | undefined {
  let best: { entry: InstanceTypeEntry; cost: number } | undefined;
  for (const entry of entries) {
    const cost = hourlyCost(entry.instanceType);
    if (cost === null) continue;
    if (!best || cost < best.cost || (cost === best.cost && entry.instanceType < best.entry.instanceType))
      best = { entry, cost };
  }
  return best?.entry;
}

function gibText(bytes: number): string {
  return `${(bytes / gib).toFixed(1)} GiB`;
}
