import { CholeskyDecomposition, Matrix } from 'ml-matrix';
import { type InstanceTraits, instanceTraits } from './instance-traits.js';
import type { Hardware } from './types.js';

/**
 * What the fleet's family effects say about families it never ran: a ridge regression of each known
 * family's mean effect (its basis coefficient, averaged over the fleet's jobs) on the traits its name
 * gives. A new generation, a Graviton variant or a slow disk layout then starts from what similar
 * hardware did, with the regression's residual spread as its uncertainty.
 */
export interface FamilyTraitPrior {
  coefficients: number[];
  /** Variance of a new family's effect around the traits' prediction. */
  variance: number;
}

export const familyTraitNames = [
  'compute',
  'memory',
  'storage',
  'generation',
  'amd',
  'arm',
  'localDisk',
  'slowStorage',
  'fastStorage',
  'networkOptimized',
  'photon',
] as const;

/** With no fleet, or a fleet of few families, a new family's effect is this uncertain (±30% runtime). */
export const unknownFamilyVariance = 0.3 ** 2;
const minimumFamilyVariance = 0.1 ** 2;
const ridge = 1;

const computeSeries = /^(c|F|z|hpc|c2|c3|h)$/;
const memorySeries = /^(r|x|E|M|u)$/;
const storageSeries = /^(i|d|h|im|is|L)$/;

export function traitRow(traits: InstanceTraits): number[] {
  const series = traits.series;
  return [
    computeSeries.test(series) ? 1 : 0,
    memorySeries.test(series) || /highmem/.test(traits.family) ? 1 : 0,
    storageSeries.test(series) ? 1 : 0,
    traits.generation === null ? 0 : Math.max(-3, Math.min(3, traits.generation - 5)),
    traits.processor === 'amd' ? 1 : 0,
    traits.processor === 'arm' ? 1 : 0,
    traits.localDisk ? 1 : 0,
    traits.storage?.speed === 'slow' ? 1 : 0,
    traits.storage?.speed === 'fast' ? 1 : 0,
    traits.networkOptimized ? 1 : 0,
    traits.photon ? 1 : 0,
  ];
}

export const uninformedFamilyTraitPrior: FamilyTraitPrior = {
  coefficients: familyTraitNames.map(() => 0),
  variance: unknownFamilyVariance,
};

/** Regresses known families' mean effects on their traits (families given by the hardware of one configuration each). */
export function learnFamilyTraitPrior(
  effects: ReadonlyArray<{ hardware: Hardware; effect: number }>,
): FamilyTraitPrior {
  const d = familyTraitNames.length;
  if (effects.length < 4) return uninformedFamilyTraitPrior;
  const rows = effects.map((entry) => traitRow(instanceTraits(entry.hardware)));
  const center = effects.reduce((sum, entry) => sum + entry.effect, 0) / effects.length;
  const targets = effects.map((entry) => entry.effect - center);
  const gram = Matrix.eye(d).mul(ridge);
  const moment = new Matrix(d, 1);
  rows.forEach((row, n) => {
    for (let a = 0; a < d; a++) {
      moment.set(a, 0, moment.get(a, 0) + (row[a] as number) * (targets[n] as number));
      for (let b = 0; b < d; b++) gram.set(a, b, gram.get(a, b) + (row[a] as number) * (row[b] as number));
    }
  });
  const solution = new CholeskyDecomposition(gram).solve(moment);
  const coefficients = Array.from({ length: d }, (_, a) => solution.get(a, 0));
  let squares = 0;
  rows.forEach((row, n) => {
    squares += ((targets[n] as number) - dot(row, coefficients)) ** 2;
  });
  // Few families teach little: the spread is inflated for the regression's own uncertainty.
  const spread = (squares / effects.length) * (1 + d / effects.length);
  return {
    coefficients,
    variance: Math.min(unknownFamilyVariance, Math.max(minimumFamilyVariance, spread)),
  };
}

/** Prior mean of a family's effect, relative to the average known family. */
export function familyEffectMean(prior: FamilyTraitPrior, hardware: Hardware): number {
  return dot(traitRow(instanceTraits(hardware)), prior.coefficients);
}

function dot(row: readonly number[], coefficients: readonly number[]): number {
  let sum = 0;
  for (let i = 0; i < row.length; i++) sum += (row[i] as number) * (coefficients[i] as number);
  return sum;
}
