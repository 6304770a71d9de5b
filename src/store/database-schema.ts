import type { Generated } from 'kysely';

/** Timestamps are epoch milliseconds on both dialects; JSON documents are text. */
export interface ProjectsTable {
  id: string;
  name: string;
  description: string | null;
  created_at: number;
  updated_at: number;
}

export interface AuditLogTable {
  id: Generated<number>;
  entity: string;
  entity_id: string;
  action: string;
  actor: string;
  detail: string;
  created_at: number;
}

export interface Database {
  projects: ProjectsTable;
  audit_log: AuditLogTable;
}
