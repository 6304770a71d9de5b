import { isNestedType, systemTables } from './table-definitions.js';

const nestedColumns = [
  ...new Set(
    systemTables.flatMap((table) =>
      table.columns.filter((column) => isNestedType(column.type)).map((column) => column.name),
    ),
  ),
];

const threePartName = /\bsystem\.(billing|compute|lakeflow)\.([A-Za-z_]\w*)\b/g;
const structPath = new RegExp(
  `(?<![\\w."])((?:[A-Za-z_]\\w*\\.)?)(${nestedColumns.join('|')})\\.([A-Za-z_]\\w*(?:\\.[A-Za-z_]\\w*)*)`,
  'g',
);

/**
 * Runs Databricks SQL on SQLite by renaming, not parsing: the few spellings the two dialects disagree on
 * in queries over system tables are rewritten outside string literals — three-part table names become
 * quoted SQLite identifiers, struct field access (`u.usage_metadata.job_run_id`) becomes `json_extract`
 * on the JSON text the struct is stored as, and backquoted identifiers become double-quoted. Everything
 * else (joins, aggregates, windows, parameters `:name`) is SQLite's own, so a query that is not valid
 * there fails as it would on a warehouse.
 */
export function toSqlite(statement: string): string {
  const parts = statement.split(/('(?:[^'\\]|\\.|'')*')/);
  return parts
    .map((part, index) => {
      if (index % 2 === 1) return part;
      return part
        .replace(/`([^`]*)`/g, (_match, name: string) => `"${name.replace(/"/g, '""')}"`)
        .replace(threePartName, (_match, schema: string, table: string) => `"system.${schema}.${table}"`)
        .replace(
          structPath,
          (_match, qualifier: string, columnName: string, path: string) =>
            `json_extract(${qualifier}${columnName}, '$.${path}')`,
        );
    })
    .join('');
}
