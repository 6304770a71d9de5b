/** A small seeded PRNG so every simulated run is reproducible from (seed, job, run index). */
export interface Random {
  next(): number;
  normal(mean: number, stdDev: number): number;
  logNormal(sigma: number): number;
  exponential(ratePerUnit: number): number;
  int(maxExclusive: number): number;
}

/** FNV-1a over the string forms of the parts: a stable 32-bit seed for any combination of keys. */
export function hashSeed(...parts: Array<string | number>): number {
  let hash = 0x811c9dc5;
  for (const char of parts.join('\u0000')) {
    hash ^= char.codePointAt(0) ?? 0;
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
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
    const v = next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  };
  return {
    next,
    normal: (mean, stdDev) => mean + stdDev * standardNormal(),
    logNormal: (sigma) => Math.exp(sigma * standardNormal() - (sigma * sigma) / 2),
    exponential: (rate) => -Math.log(Math.max(next(), 1e-12)) / rate,
    int: (maxExclusive) => Math.floor(next() * maxExclusive),
  };
}
