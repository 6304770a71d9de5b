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
      /** `!feasible`, stated: "SLA infeasible". */
      infeasible: z.boolean(),
      /**
       * With an infeasible SLA: the fastest configuration the job has run and its median runtime (null
       * before any run completed, and when the SLA is feasible).
       */
      fastest_known: z.object({ configuration: z.string(), runtime_minutes: z.number() }).nullable(),
    }),
    /** With no SLA, the runtime bound held instead; both null while no run of the job has completed. */
    z.object({
      kind: z.literal('none'),
      best_seen_minutes: z.number().nullable(),
      limit_minutes: z.number().nullable(),
    }),
  ]),
  /** The SLA in the explanation's words (with no SLA: the bound held instead, never a probability). */
  sla_text: z.string(),
  probability_fails: z.number(),
  /** The basis in the explanation's words. */
  basis_text: z.string(),
  basis: z.object({
    runs: z.number().int(),
    /** How many of `runs` the model read as totals from the project's learning summary (runs older than the window). */
    summarized_runs: z.number().int(),
    configurations: z.number().int(),
    fleet_jobs: z.number().int(),
    shipped_jobs: z.number().int(),
    calibration_cases: z.number().int(),
    /**
     * The model components that carry the most weight: `label` as a person knows the job (a project by
     * its name, "the fleet model"), `source` its id (`project:<project id>`, `<dataset>:<workload>` for a
     * job shipped with Setpoint, `run:<run id>` for the replay of the job's own run; null for the fleet
     * models and for decisions recorded before it was kept).
     */
    closest: z.array(z.object({ label: z.string(), weight: z.number(), source: z.string().nullable() })),
  }),
  filters: z.array(candidateFilterOutcomeSchema),
  notes: z.array(z.string()),
  /**
   * The learning phase: whether this is a learning run (it may knowingly risk the SLA), which one, and the
   * SLA misses spent of the project's budget (`miss_budget` null: safe learning). Null for decisions
   * recorded before the budget existed.
   */
  learning: z
    .object({
      active: z.boolean(),
      run: z.number().int(),
      max_runs: z.number().int(),
      miss_budget: z.number().int().nullable(),
      misses_spent: z.number().int(),
      /** Why this recommendation rebased (learning starts over from its run); null when it did not. */
      rebase_reason: z.string().nullable(),
      /**
       * Learning over, a change to a configuration the job never ran, tried for what it may save: its
       * expected improvement over the cheapest configuration run so far, and its expected cost (which may
       * be higher). Null otherwise.
       */
      exploration: z
        .object({
          expected_improvement_usd: z.number(),
          best_known_cost_usd: z.number(),
          expected_cost_usd: z.number(),
        })
        .nullable(),
    })
    .nullable(),
  /** The learning phase in the explanation's words. */
  learning_text: z.string().nullable(),
});
export type RecommendationDecisionResource = z.infer<typeof recommendationDecisionSchema>;

/**
 * `predicted.cost_note` when the predicted cost is not known yet (`predicted.cost_usd` null): a serverless
 * job whose every run still waits for its bill. Never $0.
 */
export const predictedCostPendingMessage = 'cost not yet known: billing pending';

export const recommendationSchema = z.object({
  id: z.string(),
  project_id: z.string(),
  state: z.enum(recommendationStates),
  phase: z.string().nullable(),
  /** What applying writes, in the platform's terms: for Databricks, a `new_cluster` fragment. */
  configuration: z.record(z.string(), z.unknown()).nullable(),
  /**
   * `cost_usd` null: no run the prediction reads has a known cost yet, and `cost_note` says so ("cost not
   * yet known: billing pending"); null when the cost is predicted.
   */
  predicted: z
    .object({
      runtime_minutes: rangeSchema,
      cost_usd: rangeSchema.nullable(),
      cost_note: z.string().nullable(),
    })
    .nullable(),
  explanation: z.string().nullable(),
  /** Null for recommendations made before decisions were recorded, and for failed ones. */
  decision: recommendationDecisionSchema.nullable(),
  /** The run this recommendation was computed after; null when there was none or its run was pruned. */
  based_on_run_id: z.string().nullable(),
  /**
   * When run retention deleted the run this recommendation was based on (`based_on_run_id` is then
   * null); null while the run is kept. The recommendation itself (configuration, prediction, decision,
   * explanation) is unchanged.
   */
  based_on_run_pruned_at: z.number().nullable(),
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
