import type { ColumnDataType, Expression } from 'kysely';

/** The only place that knows how SQLite and PostgreSQL differ. */
export type DialectName = 'sqlite' | 'postgres';

export interface DialectTypes {
  /** Auto-incrementing integer primary key. */
  serialPrimaryKey: ColumnDataType | Expression<unknown>;
  /** Epoch-millisecond timestamps and other 64-bit integers. */
  bigint: ColumnDataType;
  json: ColumnDataType;
}

export function dialectTypes(dialect: DialectName): DialectTypes {
  if (dialect === 'postgres') return { serialPrimaryKey: 'bigserial', bigint: 'bigint', json: 'text' };
  return { serialPrimaryKey: 'integer', bigint: 'integer', json: 'text' };
}
