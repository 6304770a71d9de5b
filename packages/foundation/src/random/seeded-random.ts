/**
 * A small seeded generator (mulberry32): every optimizer decision, bench cold start and simulated
 * run is reproducible from its seed. Pure, so the optimizer may import it.
 */
export interface Random {
  /** Uniform in [0, 1). */
  next(): number;
  int(maxExclusive: number): number;
  /** Gaussian (Box–Muller), standard unless told otherwise. */
  normal(mean?: number, stdDev?: number): number;
  /** exp(σ·Z − σ²/2): a multiplicative noise factor with mean 1. */
  logNormal(sigma: number): number;
  exponential(ratePerUnit: number): number;
}

export function createRandom(seed: number): Random {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const standardNormal = (): number => {
    const u = Math.max(next(), 1e-12);
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * next());
  };
  return {
    next,
    int: (maxExclusive) => Math.floor(next() * maxExclusive),
    normal: (mean = 0, stdDev = 1) => mean + stdDev * standardNormal(),
    logNormal: (sigma) => Math.exp(sigma * standardNormal() - (sigma * sigma) / 2),
    exponential: (rate) => -Math.log(Math.max(next(), 1e-12)) / rate,
  };
}

/** A stable 32-bit seed from several parts (FNV-1a over their text), e.g. (seed, job, run index). */
export function deriveSeed(...parts: Array<string | number>): number {
  let hash = 0x811c9dc5;
  for (const char of parts.join('\u0000')) {
    hash ^= char.codePointAt(0) ?? 0;
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
