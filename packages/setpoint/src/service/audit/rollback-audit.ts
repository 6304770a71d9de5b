import type { AuditEntry } from './audit-repository.js';

/** One setting a rollback put back: what it was before the rollback, and what it is after. */
export interface RolledBackChange {
  what: string;
  from: unknown;
  to: unknown;
}

const shown = (value: unknown) =>
  value === undefined || value === null ? 'unset' : typeof value === 'string' ? value : JSON.stringify(value);

/**
 * The audit entry of a rollback (a person's) or a revert (Setpoint's own, after a missed SLA), the same
 * on every platform: who, which applied configuration it left and which it went back to, and each
 * setting from → to (also as one readable line for the audit page and its export).
 */
export function rollbackAuditEntry(rollback: {
  projectId: string;
  actor: string;
  kind: 'rollback' | 'revert';
  platform: string;
  fromConfigId: string | null;
  toConfigId: string | null;
  changes: RolledBackChange[];
  reason: string;
}): AuditEntry {
  return {
    entity: 'project',
    entityId: rollback.projectId,
    action: rollback.kind,
    actor: rollback.actor,
    detail: {
      platform: rollback.platform,
      from_config: rollback.fromConfigId,
      to_config: rollback.toConfigId,
      summary:
        rollback.changes.length === 0
          ? 'nothing differed'
          : rollback.changes
              .map((change) => `${change.what}: ${shown(change.from)} → ${shown(change.to)}`)
              .join('; '),
      changes: rollback.changes,
      reason: rollback.reason,
    },
  };
}
