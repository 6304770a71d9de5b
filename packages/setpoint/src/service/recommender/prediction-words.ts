import { predictedCostPendingMessage } from '@setpoint/api-contract';
import type { Prediction } from './recommender.js';

/**
 * A prediction in one line, as the exported files' headers carry it: "predicted 12.0 min (10.5–14.2) at
 * $1.20 ($1.00–$1.50) per run", or, before any cost is known, the runtime and "cost not yet known".
 */
export function predictionLine(prediction: Prediction): string {
  const { runtimeMinutes: runtime, costUsd: cost } = prediction;
  const minutes = `${runtime.mid.toFixed(1)} min (${runtime.low.toFixed(1)}–${runtime.high.toFixed(1)})`;
  return cost === null
    ? `predicted ${minutes} per run; ${predictedCostPendingMessage}`
    : `predicted ${minutes} at $${cost.mid.toFixed(2)} ($${cost.low.toFixed(2)}–$${cost.high.toFixed(2)}) per run`;
}
