import { z } from 'zod';

/**
 * Approval of learning runs (apply mode `approve-learning`): a recommendation that waits for a person
 * before Setpoint writes it, and what became of it (`/api/v1/approvals`,
 * `/api/v1/projects/:id/recommendations/:rid/{approve,reject}`).
 *
 * `waiting`: asked, not yet answered; `approved`: a person approved it and Setpoint writes it (the apply
 * history records the write); `rejected`: a person said no; `superseded`: it waited past the project's
 * next run, or a newer recommendation replaced it, and is never applied.
 */
export const approvalStates = ['waiting', 'approved', 'rejected', 'superseded'] as const;
export type ApprovalState = (typeof approvalStates)[number];

export const approvalSchema = z.object({
  recommendation_id: z.string(),
  project_id: z.string(),
  state: z.enum(approvalStates),
  /** When it started waiting. */
  waiting_since: z.number(),
  /** The learning run it would be (1 = the first recommendation), when its decision says. */
  learning_run: z.number().int().nullable(),
  /** The recommendation's explanation, for the person deciding. */
  explanation: z.string().nullable(),
  /** When it was approved, rejected or superseded; null while waiting. */
  decided_at: z.number().nullable(),
  /** Who approved or rejected it (`setpoint` when superseded). */
  decided_by: z.string().nullable(),
  /** Why it was superseded, or the note given with a rejection. */
  reason: z.string().nullable(),
});
export type ApprovalResource = z.infer<typeof approvalSchema>;

export const approvalListSchema = z.object({ items: z.array(approvalSchema) });
export type ApprovalListResource = z.infer<typeof approvalListSchema>;

export const approvalListQuery = z.object({
  /** Default `waiting`: what awaits a person now. */
  state: z.enum(approvalStates).default('waiting'),
  project_id: z.string().max(100).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});

export const rejectBody = z
  .object({ reason: z.string().trim().min(1).max(500).optional() })
  .strict()
  .default({});
export type RejectBody = z.input<typeof rejectBody>;
