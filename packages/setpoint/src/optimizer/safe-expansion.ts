import { totalCores } from './config-features.js';
import type { Candidate, Observation } from './types.js';

/**
 * Safe expansion: configurations a job may try under safe learning on the strength of a configuration
 * that met its SLA, not on the model's confidence alone (SafeOpt's safe set grown from measured points).
 *
 * A configuration A that met the SLA in every run, worst runtime r_A on c_A cores, bounds a smaller
 * cluster B of the same nodes (instance type, disks, engine) with c_B cores: if the job's work were
 * perfectly parallel, B would take r_A × c_A / c_B, and a job that scales less than perfectly takes less.
 * So B is safe by expansion when r_A × c_A / c_B × margin ≤ SLA: a shrink step bounded by the slack A
 * showed, which lets an over-provisioned cluster come down quickly and stops at the SLA's edge.
 *
 * Only the node count changes. Consolidating onto fewer, larger nodes of the family (or spreading onto
 * more, smaller ones) leaves the bound's assumption: network, shuffle and disk per core change with the
 * node, not the core. On Scout's sweeps, over every same-family pair the bound admits with the SLA at its
 * edge (`scripts/bench/expansion-pairs.ts`), steps that keep the instance type run above 1.1 × the bound in
 * 10.4% of pairs (above 1.5 × in 5.3%), onto larger nodes 13.3% (7.3%), onto smaller ones 17.7% (4.8%); on
 * the emulator's sweep 1.3% against 2.8% and 1.5%; on the generated sweeps alike (12.9%, 12.3%, 14.2%).
 * A job that runs on the SLA's edge then reaches larger nodes through the model's confidence, as any other
 * change.
 *
 * Perfect scaling is not a bound where a smaller cluster's memory no longer holds the job's data (spill,
 * out-of-memory failures). On Scout's sweeps (18 workloads, every same-family pair) such cliffs made 9–10%
 * of the configurations this bound admitted miss when a step's size was not limited, whatever the margin;
 * steps that keep at least two thirds of the cores missed 4.3% (2.1% failed, 2.2% late, 0.5% above 1.5 ×
 * the SLA) with a margin of 1.1, on the generated sweeps 1.0%. Hence `minCoreShare` and `margin` below.
 * The model's failure bound still applies to every such run; the bound takes the place of the model's
 * overrun and cost tails.
 *
 * A job whose run after the cold start missed the SLA or failed has shown that its runs are less
 * predictable than the bound assumes: its safe set shrinks back to what the model is confident of.
 */
export interface SafeExpansionSettings {
  /** The perfect-scaling bound times this must meet the SLA (run-to-run noise, overheads). */
  margin: number;
  /** A step keeps at least this share of the met configuration's cores (memory cliffs, see above). */
  minCoreShare: number;
}

export const defaultSafeExpansion: SafeExpansionSettings = { margin: 1.1, minCoreShare: 2 / 3 };

/** A configuration the job ran that met the SLA in every run: its worst runtime is what the bound scales. */
export interface MetConfiguration {
  candidate: Candidate;
  worstRuntimeS: number;
}

/**
 * The configurations every run of which completed within `slaSeconds` (their worst runtime), or none when
 * a run after the cold start missed the SLA or failed (the job left the bound's assumptions).
 */
export function metConfigurations(
  candidates: readonly Candidate[],
  observations: readonly Observation[],
  slaSeconds: number,
): MetConfiguration[] {
  if (!Number.isFinite(slaSeconds)) return [];
  const missed = (observation: Observation) => !observation.completed || observation.runtimeS > slaSeconds;
  if (observations.slice(1).some(missed)) return [];
  const worst = new Map<string, number>();
  for (const observation of observations) {
    if (missed(observation)) {
      worst.set(observation.candidateId, Number.POSITIVE_INFINITY);
      continue;
    }
    worst.set(
      observation.candidateId,
      Math.max(worst.get(observation.candidateId) ?? 0, observation.runtimeS),
    );
  }
  return candidates.flatMap((candidate) => {
    const worstRuntimeS = worst.get(candidate.id);
    return worstRuntimeS !== undefined && Number.isFinite(worstRuntimeS)
      ? [{ candidate, worstRuntimeS }]
      : [];
  });
}

/** Why a candidate is safe by expansion: the met configuration that bounds it, and the bound. */
export interface ExpansionBound {
  fromCandidateId: string;
  /** The met configuration's worst runtime scaled perfectly to this candidate's cores. */
  boundRuntimeS: number;
}

/**
 * The candidates safe by expansion from `met` at `slaSeconds` — fewer of a met configuration's nodes, at
 * least `minCoreShare` of its cores, whose perfect-scaling runtime times the margin meets the SLA — each
 * with that perfect-scaling runtime (the least of them when several met configurations bound it): the
 * worst its runs should take, so the worst they should cost.
 */
export function safeByExpansion(
  candidates: readonly Candidate[],
  met: readonly MetConfiguration[],
  slaSeconds: number,
  settings: SafeExpansionSettings = defaultSafeExpansion,
): Map<string, ExpansionBound> {
  const safe = new Map<string, ExpansionBound>();
  for (const { candidate: from, worstRuntimeS } of met) {
    const fromCores = totalCores(from);
    for (const candidate of candidates) {
      const toCores = totalCores(candidate);
      if (toCores >= fromCores || toCores < settings.minCoreShare * fromCores) continue;
      if (!sameNodes(candidate, from)) continue;
      const boundRuntimeS = worstRuntimeS * (fromCores / toCores);
      if (boundRuntimeS * settings.margin > slaSeconds) continue;
      const known = safe.get(candidate.id);
      if (!known || boundRuntimeS < known.boundRuntimeS)
        safe.set(candidate.id, { fromCandidateId: from.id, boundRuntimeS });
    }
  }
  return safe;
}

/** Equal nodes: what a run on one tells of a run on more or fewer of the other. */
function sameNodes(a: Candidate, b: Candidate): boolean {
  return (
    a.instanceType === b.instanceType &&
    a.engine === b.engine &&
    a.storage?.label === b.storage?.label &&
    a.vcpusPerNode === b.vcpusPerNode &&
    a.memoryGibPerNode === b.memoryGibPerNode
  );
}
