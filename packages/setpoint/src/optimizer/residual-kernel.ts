import { instanceFamily } from './instance-traits.js';
import type { Candidate } from './types.js';

/** Where a configuration sits for the smooth part of the model: its shape and its hardware family. */
export interface ConfigPoint {
  /** log2 nodes, log2 vCPUs per node, log2 memory per vCPU. */
  coordinates: readonly [number, number, number];
  family: string;
}

export function configPoint(candidate: Candidate): ConfigPoint {
  return {
    coordinates: [
      Math.log2(candidate.nodes),
      Math.log2(candidate.vcpusPerNode),
      Math.log2(candidate.memoryGibPerNode / candidate.vcpusPerNode),
    ],
    family: instanceFamily(candidate),
  };
}

/**
 * How a job's deviations from the basis carry between configurations: smoothly over shape (a squared
 * exponential in the coordinates), and only partly across families — two disk layouts or CPU families
 * of the same shape are related, not the same machine.
 */
export interface ResidualKernelShape {
  lengthscale: number;
  /** Correlation of the deviations of two families at the same shape (1: families share them fully). */
  familyCorrelation: number;
}

export function residualCorrelation(a: ConfigPoint, b: ConfigPoint, shape: ResidualKernelShape): number {
  let sum = 0;
  for (let i = 0; i < 3; i++) sum += ((a.coordinates[i] as number) - (b.coordinates[i] as number)) ** 2;
  const smooth = Math.exp(-sum / (2 * shape.lengthscale * shape.lengthscale));
  return a.family === b.family ? smooth : smooth * shape.familyCorrelation;
}
