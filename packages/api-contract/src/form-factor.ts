import { z } from 'zod';
import { rangeSchema } from './common.js';

/**
 * Where a job runs, on every platform: a cluster Setpoint sizes (`classic`: a Databricks job cluster, an EMR
 * cluster on EC2) or compute the platform sizes (`serverless`: Databricks serverless compute, EMR Serverless).
 */
export const formFactors = ['classic', 'serverless'] as const;

/** A person's decision on a proposed move: who and when. */
export const formFactorProposalSchema = z.object({
  status: z.enum(['proposed', 'approved', 'dismissed']),
  decided_by: z.string().nullable(),
  decided_at: z.number().nullable(),
  note: z.string().nullable(),
});

/**
 * `GET /api/v1/projects/:id/form-factor`: what the same job would cost in the other form (serverless for a
 * project on a cluster; a cluster for a serverless one, once it ran there), on what basis, and whether a
 * move is proposed. A proposal is approved or dismissed by a person; Setpoint never writes a form-factor change.
 */
export const formFactorAdviceSchema = z.object({
  project_id: z.string(),
  from: z.enum(formFactors),
  to: z.enum(formFactors),
  /** `move`: proposed; `stay`: the other form saves too little or risks the SLA; `estimate_only`: no evidence. */
  verdict: z.enum(['move', 'stay', 'estimate_only', 'no_estimate']),
  /** The move in words, e.g. "job cluster `main` → serverless compute (performance optimized)", "EMR on EC2 → EMR Serverless". */
  change: z.string(),
  current_usd_per_run: z.number().nullable(),
  estimate: z
    .object({
      usd_per_run: rangeSchema,
      runtime_minutes: z.number().nullable(),
      /** `measured`: the job's own runs there; `evidence`: facts the estimate rests on (moved jobs, the job's event logs); `assumption`: neither. */
      kind: z.enum(['measured', 'evidence', 'assumption']),
    })
    .nullable(),
  saving_usd_per_run: z.number().nullable(),
  probability_meets_sla: z.number().nullable(),
  basis: z.array(z.string()),
  reason: z.string(),
  explanation: z.string(),
  /** Once the job ran in the other form: the estimate from its cluster runs against what those runs cost. */
  check: z.object({ estimated_usd: z.number(), measured_usd: z.number(), error: z.number() }).nullable(),
  /** Set while a move is proposed (verdict `move`), with a person's decision once taken. */
  proposal: formFactorProposalSchema.nullable(),
});
export type FormFactorAdviceResource = z.infer<typeof formFactorAdviceSchema>;

/** `POST /api/v1/projects/:id/form-factor/decision`: a person approves or dismisses the proposed move. */
export const formFactorDecisionBody = z.object({
  decision: z.enum(['approve', 'dismiss']),
  note: z.string().trim().max(500).optional(),
});
export type FormFactorDecisionInput = z.infer<typeof formFactorDecisionBody>;
