/**
 * A value axis from 0 that holds `top` with headroom, its ticks on round steps (1, 2, 2.5 or 5 × 10ⁿ)
 * and its maximum on a tick: a maximum between two ticks draws its own label over the tick below it.
 */
export function roundValueAxis(top: number, ticks = 5): { max: number; interval: number } {
  if (!Number.isFinite(top) || top <= 0) return { max: 1, interval: 0.2 };
  const rough = top / ticks;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = ([1, 2, 2.5, 5, 10].find((factor) => factor * power >= rough) ?? 10) * power;
  return { max: Math.ceil(top / step - 1e-9) * step, interval: step };
}
