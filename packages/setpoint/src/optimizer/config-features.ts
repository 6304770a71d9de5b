import { instanceFamily } from './instance-traits.js';
import type { Candidate } from './types.js';

export { instanceFamily };

export function totalCores(candidate: Candidate): number {
  return candidate.nodes * candidate.vcpusPerNode;
}

export function totalMemoryGib(candidate: Candidate): number {
  return candidate.nodes * candidate.memoryGibPerNode;
}

export function memoryPerCore(candidate: Candidate): number {
  return candidate.memoryGibPerNode / candidate.vcpusPerNode;
}

/** Knots (log2 GiB of cluster memory) of the memory-pressure hinges: 32 GiB … 512 GiB. */
const memoryKnotsLog2 = [5, 6, 7, 8, 9];

/**
 * The basis of the runtime model, in log2 units so that one coefficient means the same thing for every
 * job: parallel work over cores (Ernest's work/cores term becomes a slope in log cores, its curvature the
 * serial and coordination terms), scale-out versus scale-up at equal cores (log nodes), memory pressure
 * (hinges that switch on as cluster memory falls below each knot: spill, then GC thrash), memory per core,
 * and one indicator per instance family for CPU generation and speed.
 */
export class FeatureSpace {
  readonly families: readonly string[];
  readonly dimension: number;
  readonly names: readonly string[];

  constructor(families: Iterable<string>) {
    this.families = [...new Set(families)].sort();
    this.names = [
      'intercept',
      'log2Cores',
      'log2CoresSquared',
      'log2Nodes',
      'log2NodesSquared',
      ...memoryKnotsLog2.map((knot) => `memoryBelow${2 ** knot}Gib`),
      'log2MemoryPerCore',
      ...this.families.map((family) => `family:${family}`),
    ];
    this.dimension = this.names.length;
  }

  /** The space again after a structured clone (it is defined by its families alone). */
  static revive(clone: FeatureSpace): FeatureSpace {
    return new FeatureSpace(clone.families);
  }

  withFamilies(families: Iterable<string>): FeatureSpace {
    return new FeatureSpace([...this.families, ...families]);
  }

  /** basis(candidate) · coefficients, without building the row (analog surfaces ask this millions of times). */
  dotBasis(candidate: Candidate, coefficients: readonly number[]): number {
    const cores = Math.log2(totalCores(candidate)) - 5;
    const nodes = Math.log2(candidate.nodes) - 3;
    const memory = Math.log2(totalMemoryGib(candidate));
    let value =
      (coefficients[0] as number) +
      (coefficients[1] as number) * cores +
      (coefficients[2] as number) * cores * cores +
      (coefficients[3] as number) * nodes +
      (coefficients[4] as number) * nodes * nodes;
    let i = 5;
    for (const knot of memoryKnotsLog2) value += (coefficients[i++] as number) * Math.max(0, knot - memory);
    value +=
      (coefficients[i++] as number) * (Math.log2(candidate.memoryGibPerNode / candidate.vcpusPerNode) - 2);
    const family = this.familyIndex(instanceFamily(candidate));
    if (family >= 0) value += coefficients[i + family] as number;
    return value;
  }

  private familyIndex(family: string): number {
    this.familyIndices ??= new Map(this.families.map((name, i) => [name, i]));
    return this.familyIndices.get(family) ?? -1;
  }

  private familyIndices: Map<string, number> | undefined;

  basis(candidate: Candidate): Float64Array {
    const out = new Float64Array(this.dimension);
    const cores = Math.log2(totalCores(candidate)) - 5;
    const nodes = Math.log2(candidate.nodes) - 3;
    const memory = Math.log2(totalMemoryGib(candidate));
    let i = 0;
    out[i++] = 1;
    out[i++] = cores;
    out[i++] = cores * cores;
    out[i++] = nodes;
    out[i++] = nodes * nodes;
    for (const knot of memoryKnotsLog2) out[i++] = Math.max(0, knot - memory);
    out[i++] = Math.log2(candidate.memoryGibPerNode / candidate.vcpusPerNode) - 2;
    const family = this.families.indexOf(instanceFamily(candidate));
    if (family >= 0) out[i + family] = 1;
    return out;
  }
}
