import { z } from 'zod';
import { listOf, pageQuery } from './common.js';

/** An export holds at most this many entries; a wider filter is refused with the count, never cut short. */
export const maxAuditExportRows = 50_000;

const epochMs = z.coerce.number().int().min(0);

/** The audit trail's filters; every one optional. `until` is exclusive; times are epoch milliseconds. */
export const auditFilterQuery = z.object({
  /** `user:ana`, `ana`, `api-key:key_…`, `pipeline`, `external`. */
  actor: z.string().min(1).max(200).optional(),
  action: z.string().min(1).max(100).optional(),
  /** What kind of thing changed: project, recommendation, workspace, api_key, user, organization, … */
  entity: z.string().min(1).max(100).optional(),
  project_id: z.string().min(1).max(100).optional(),
  since: epochMs.optional(),
  until: epochMs.optional(),
});

const sinceBeforeUntil = (query: { since?: number | undefined; until?: number | undefined }) =>
  query.since === undefined || query.until === undefined || query.since < query.until;
const sinceBeforeUntilMessage = { message: '`since` must be before `until`', path: ['since'] };

/** `GET /api/v1/audit`: one page of the organization's audit trail, newest first. */
export const auditListQuery = pageQuery
  .extend(auditFilterQuery.shape)
  .refine(sinceBeforeUntil, sinceBeforeUntilMessage);

/** `GET /api/v1/audit/export`: every matching entry (at most `maxAuditExportRows`) as CSV or JSON. */
export const auditExportQuery = auditFilterQuery
  .extend({ format: z.enum(['csv', 'json']).default('csv') })
  .refine(sinceBeforeUntil, sinceBeforeUntilMessage);

export const auditTrailEntrySchema = z.object({
  id: z.number().int(),
  /** Who: `user:<name>`, `api-key:<id>`, `pipeline` (Setpoint itself) or `external` (seen in the platform). */
  actor: z.string(),
  /** What: `create`, `update_settings`, `apply_requested`, `rollback`, `reset`, `role_changed`, … */
  action: z.string(),
  /** The target: what kind of thing and which one. */
  entity: z.string(),
  entity_id: z.string(),
  /** The project the change concerns, when it concerns one (and its name while it exists). */
  project_id: z.string().nullable(),
  project_name: z.string().nullable(),
  /** What changed; never secret values. */
  detail: z.record(z.string(), z.unknown()),
  created_at: z.number(),
});

export const auditTrailList = listOf(auditTrailEntrySchema);

/** The values the trail holds, for the dashboard's filter choices. */
export const auditFacetsSchema = z.object({
  actors: z.array(z.string()),
  actions: z.array(z.string()),
  entities: z.array(z.string()),
});

export type AuditTrailEntryResource = z.infer<typeof auditTrailEntrySchema>;
export type AuditFacets = z.infer<typeof auditFacetsSchema>;
