import { isNestedType, systemTables } from './table-definitions.js';

const nestedColumns = [
  ...new Set(
    systemTables.flatMap((table) =>
      table.columns.filter((column) => isNestedType(column.type)).map((column) => column.name),
    ),
  ),
];

const mapColumns = [
  ...new Set(
    systemTables.flatMap((table) =>
      table.columns.filter((column) => column.type.startsWith('MAP<')).map((column) => column.name),
    ),
  ),
];
/** `custom_tags[` (optionally qualified) at the end of the text before a string literal key. */
const mapSubscriptBeforeLiteral = new RegExp(
  `(?<![\\w."])((?:[A-Za-z_]\\w*\\.)?(?:${mapColumns.join('|')}))\\s*\\[\\s*$`,
);
/** `custom_tags[:key]`: the key is a statement parameter. */
const mapSubscriptByParameter = new RegExp(
  `(?<![\\w."])((?:[A-Za-z_]\\w*\\.)?(?:${mapColumns.join('|')}))\\s*\\[\\s*(:[A-Za-z_]\\w*)\\s*\\]`,
  'g',
);

/** The text of a SQL string literal: quotes stripped, `''` and `\\'` unescaped. */
function literalText(literal: string): string {
  return literal.slice(1, -1).replace(/''/g, "'").replace(/\\(.)/g, '$1');
}

/** A JSON path to one key of a map stored as JSON text, as a SQLite string literal. */
function mapKeyPath(key: string): string {
  return `'$."${key.replace(/'/g, "''")}"'`;
}

const threePartName = /\bsystem\.(billing|compute|lakeflow)\.([A-Za-z_]\w*)\b/g;
const structPath = new RegExp(
  `(?<![\\w."])((?:[A-Za-z_]\\w*\\.)?)(${nestedColumns.join('|')})\\.([A-Za-z_]\\w*(?:\\.[A-Za-z_]\\w*)*)`,
  'g',
);

/**
 * Runs Databricks SQL on SQLite by renaming, not parsing: the few spellings the two dialects disagree on
 * in queries over system tables are rewritten outside string literals — three-part table names become
 * quoted SQLite identifiers, struct field access (`u.usage_metadata.job_run_id`) becomes `json_extract`
 * on the JSON text the struct is stored as, so does a map subscript (`custom_tags['team']`, or with a
 * parameter `custom_tags[:key]`), and backquoted identifiers become double-quoted. Everything
 * else (joins, aggregates, windows, parameters `:name`) is SQLite's own, so a query that is not valid
 * there fails as it would on a warehouse.
 */
export function toSqlite(statement: string): string {
  const parts = statement.split(/('(?:[^'\\]|\\.|'')*')/);
  // a map subscript by a literal key spans three parts: `tags[`, `'key'`, `]`
  for (let index = 1; index < parts.length - 1; index += 2) {
    const before = parts[index - 1]!;
    const after = parts[index + 1]!;
    const literal = parts[index]!;
    const key = literalText(literal);
    if (!mapSubscriptBeforeLiteral.test(before) || !/^\s*\]/.test(after) || key.includes('"')) continue;
    parts[index - 1] = before.replace(mapSubscriptBeforeLiteral, 'json_extract($1, ');
    parts[index] = mapKeyPath(key);
    parts[index + 1] = after.replace(/^\s*\]/, ')');
  }
  return parts
    .map((part, index) => {
      if (index % 2 === 1) return part;
      return part
        .replace(/`([^`]*)`/g, (_match, name: string) => `"${name.replace(/"/g, '""')}"`)
        .replace(threePartName, (_match, schema: string, table: string) => `"system.${schema}.${table}"`)
        .replace(
          mapSubscriptByParameter,
          (_match, column: string, parameter: string) =>
            `json_extract(${column}, '$."' || ${parameter} || '"')`,
        )
        .replace(
          structPath,
          (_match, qualifier: string, columnName: string, path: string) =>
            `json_extract(${qualifier}${columnName}, '$.${path}')`,
        );
    })
    .join('');
}
