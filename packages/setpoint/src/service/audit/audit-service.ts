import { maxAuditExportRows } from '@setpoint/api-contract';
import { ValidationError } from '@setpoint/foundation/errors';
import type { AuditEntry, AuditFilter, AuditRepository, AuditTrailRecord } from './audit-repository.js';

/** Rows read per query while an export is assembled. */
const exportBatch = 1000;

/** The organization's audit trail: filtered pages and bounded exports (admins only; see the routes). */
export function createAuditService({ audit }: { audit: AuditRepository }) {
  return {
    /** Records what happened outside a change of the core's own (a platform's observation). */
    record: (entry: AuditEntry) => audit.record(entry),

    async page(filter: AuditFilter, limit: number, offset: number) {
      const [rows, total] = await Promise.all([audit.page(filter, limit, offset), audit.count(filter)]);
      return { rows, total };
    },

    facets: () => audit.facets(),

    /** Every matching entry, newest first; a filter matching more than the export bound is refused. */
    async exportRows(filter: AuditFilter, limit = maxAuditExportRows): Promise<AuditTrailRecord[]> {
      // What existed when the export started: entries written meanwhile neither shift nor join it.
      const pinned: AuditFilter = { ...filter, throughId: await audit.lastId() };
      const total = await audit.count(pinned);
      if (total > limit)
        throw new ValidationError(
          'AUDIT_EXPORT_TOO_LARGE',
          `the filter matches ${total} audit entries; an export holds at most ${limit}: narrow the time range or filter by project, actor or action`,
        );
      const rows: AuditTrailRecord[] = [];
      for (;;) {
        const last = rows.at(-1);
        const batch = await audit.page(
          last ? { ...pinned, olderThan: { createdAt: last.createdAt, id: last.id } } : pinned,
          exportBatch,
          0,
        );
        rows.push(...batch);
        if (batch.length < exportBatch) return rows;
      }
    },
  };
}

export type AuditService = ReturnType<typeof createAuditService>;
