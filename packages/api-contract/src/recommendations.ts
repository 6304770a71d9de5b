import { z } from 'zod';
import { idParams, listOf, pageQuery, rangeSchema } from './common.js';

export const recommendationStates = ['PENDING', 'SUCCESS', 'FAILURE'] as const;

/** What one named candidate filter removed: how many candidates, and the first reasons. */
export const candidateFilterOutcomeSchema = z.object({
  filter: z.string(),
  dropped: z.number().int().nonnegative(),
  examples: z.array(z.string()),
});

/**
 * The decision behind a recommendation, structured: the card, the CLI and the explanation read the same
 * object. `sla.kind` `none`: the project has no SLA, and the runtime is held near the best seen instead.
 */
export const recommendationDecisionSchema = z.object({
  action: z.enum(['keep', 'change']),
  /** "8 × r5d.xlarge, spot with fallback → 32 × r5d.xlarge, spot with fallback", or "no change". */
  change: z.string(),
  sla: z.discriminatedUnion('kind', [
    z.object({
      kind: z.literal('project'),
      minutes: z.number(),
      probability_meets: z.number(),
      /** False when no allowed configuration is predicted to meet it. */
      feasible: z.boolean(),
    }),
    z.object({ kind: z.literal('none'), best_seen_minutes: z.number(), limit_minutes: z.number() }),
  ]),
  probability_fails: z.number(),
  basis: z.object({
    runs: z.number().int(),
    configurations: z.number().int(),
    fleet_jobs: z.number().int(),
    shipped_jobs: z.number().int(),
    calibration_cases: z.number().int(),
    closest: z.array(z.object({ label: z.string(), weight: z.number() })),
  }),
  filters: z.array(candidateFilterOutcomeSchema),
  notes: z.array(z.string()),
});
export type RecommendationDecisionResource = z.infer<typeof recommendationDecisionSchema>;

export const recommendationSchema = z.object({
  id: z.string(),
  project_id: z.string(),
  state: z.enum(recommendationStates),
  phase: z.string().nullable(),
  /** What applying writes, in the platform's terms: for Databricks, a `new_cluster` fragment. */
  configuration: z.record(z.string(), z.unknown()).nullable(),
  predicted: z.object({ runtime_minutes: rangeSchema, cost_usd: rangeSchema }).nullable(),
  explanation: z.string().nullable(),
  /** Null for recommendations made before decisions were recorded, and for failed ones. */
  decision: recommendationDecisionSchema.nullable(),
  based_on_run_id: z.string().nullable(),
  error: z.string().nullable(),
  requested_by: z.string(),
  applied: z.object({ requested_at: z.number(), requested_by: z.string().nullable() }).nullable(),
  created_at: z.number(),
  updated_at: z.number(),
});
export type RecommendationResource = z.infer<typeof recommendationSchema>;

export const recommendationListSchema = listOf(recommendationSchema);
export const recommendationListQuery = pageQuery.extend({ state: z.enum(recommendationStates).optional() });
export const recommendationParams = idParams.extend({ rid: z.string().min(1).max(100) });

export const recommendationRequestBody = z
  .object({ based_on_run_id: z.string().max(100).optional() })
  .optional();
export const recommendationRequestedSchema = z.object({ id: z.string(), state: z.literal('PENDING') });
export type RecommendationRequested = z.infer<typeof recommendationRequestedSchema>;

/**
 * The decision's SLA in words, the same on the card and in the CLI: "P(runtime ≤ 2.5 min) = 0.93";
 * "infeasible: …"; with no SLA, the runtime bound Setpoint holds instead — never a probability.
 */
export function describeDecisionSla(decision: RecommendationDecisionResource): string {
  const { sla } = decision;
  if (sla.kind === 'none') {
    const share = Math.round((sla.limit_minutes / sla.best_seen_minutes - 1) * 100);
    return `no SLA set: runtime held within ${share}% of the best seen (${sla.best_seen_minutes.toFixed(1)} min)`;
  }
  const probability = `P(runtime ≤ ${sla.minutes.toFixed(1)} min) = ${sla.probability_meets.toFixed(2)}`;
  return sla.feasible
    ? probability
    : `SLA infeasible: no configuration is predicted to meet it (${probability})`;
}

/** What the decision rests on, in one line: own runs, the fleet prior, calibration, the closest jobs. */
export function describeDecisionBasis(decision: RecommendationDecisionResource): string {
  const { basis } = decision;
  const closest = basis.closest
    .map((entry) => `${entry.label} ${Math.round(entry.weight * 100)}%`)
    .join(', ');
  const calibration =
    basis.calibration_cases > 0
      ? `calibrated on ${basis.calibration_cases} held-out predictions`
      : 'not calibrated';
  return (
    `${basis.runs} run(s) on ${basis.configurations} configuration(s); fleet of ${basis.fleet_jobs} job(s) ` +
    `(${basis.shipped_jobs} shipped, ${basis.fleet_jobs - basis.shipped_jobs} of this organization); ${calibration}` +
    `${closest ? `; closest: ${closest}` : ''}`
  );
}
