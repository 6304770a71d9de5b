import {
  type AuditTrailEntryResource,
  auditExportQuery,
  auditFacetsSchema,
  auditListQuery,
  auditTrailList,
  toCsv,
} from '@setpoint/api-contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AuditFilter, AuditTrailRecord } from '../../service/audit/audit-repository.js';
import type { AuditService } from '../../service/audit/audit-service.js';

const bearer = [{ bearerAuth: [] }];

export function presentAuditEntry(record: AuditTrailRecord): AuditTrailEntryResource {
  return {
    id: record.id,
    actor: record.actor,
    action: record.action,
    entity: record.entity,
    entity_id: record.entityId,
    project_id: record.projectId,
    project_name: record.projectName,
    detail: record.detail,
    created_at: record.createdAt,
  };
}

/** Raw values: an ISO 8601 UTC time and epoch ms, ids, and the detail as JSON. */
const csvHeader = [
  'time_utc',
  'time_ms',
  'actor',
  'action',
  'entity',
  'entity_id',
  'project_id',
  'project_name',
  'detail_json',
];

export function auditCsv(entries: AuditTrailEntryResource[]): string {
  return toCsv(
    csvHeader,
    entries.map((entry) => [
      new Date(entry.created_at).toISOString(),
      String(entry.created_at),
      entry.actor,
      entry.action,
      entry.entity,
      entry.entity_id,
      entry.project_id ?? '',
      entry.project_name ?? '',
      JSON.stringify(entry.detail),
    ]),
  );
}

function filterOf(query: {
  actor?: string | undefined;
  action?: string | undefined;
  entity?: string | undefined;
  project_id?: string | undefined;
  since?: number | undefined;
  until?: number | undefined;
}): AuditFilter {
  const filter: AuditFilter = {};
  if (query.actor !== undefined) filter.actor = query.actor;
  if (query.action !== undefined) filter.action = query.action;
  if (query.entity !== undefined) filter.entity = query.entity;
  if (query.project_id !== undefined) filter.projectId = query.project_id;
  if (query.since !== undefined) filter.since = query.since;
  if (query.until !== undefined) filter.until = query.until;
  return filter;
}

/** The organization's audit trail (admins only, see `authorize`): filtered pages and exports. */
export function auditRoutes(audit: AuditService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/api/v1/audit',
      {
        schema: {
          tags: ['audit'],
          summary: 'Who changed what and when, newest first, filtered by actor, action, target and time',
          security: bearer,
          querystring: auditListQuery,
          response: { 200: auditTrailList },
        },
      },
      async (request) => {
        const { limit, offset } = request.query;
        const page = await audit.page(filterOf(request.query), limit, offset);
        return { items: page.rows.map(presentAuditEntry), total: page.total, limit, offset };
      },
    );

    app.get(
      '/api/v1/audit/facets',
      {
        schema: {
          tags: ['audit'],
          summary: 'The actors, actions and kinds of target the audit trail holds',
          security: bearer,
          response: { 200: auditFacetsSchema },
        },
      },
      async () => audit.facets(),
    );

    app.get(
      '/api/v1/audit/export',
      {
        schema: {
          tags: ['audit'],
          summary:
            'Every matching entry as CSV or JSON (at most 50,000; a wider filter answers 400 with the count)',
          security: bearer,
          querystring: auditExportQuery,
        },
      },
      async (request, reply) => {
        const entries = (await audit.exportRows(filterOf(request.query))).map(presentAuditEntry);
        const stamp = new Date().toISOString().slice(0, 19).replaceAll(':', '-');
        const json = request.query.format === 'json';
        reply
          .header('content-type', json ? 'application/json; charset=utf-8' : 'text/csv; charset=utf-8')
          .header(
            'content-disposition',
            `attachment; filename="setpoint-audit-${stamp}.${json ? 'json' : 'csv'}"`,
          )
          .header('cache-control', 'no-store');
        return reply.send(
          json ? JSON.stringify({ items: entries, total: entries.length }) : auditCsv(entries),
        );
      },
    );
  };
}
