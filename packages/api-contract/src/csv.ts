/**
 * The CSV of every export (the audit trail from the API, the projects table from the dashboard): RFC
 * 4180, and safe to open in a spreadsheet. A cell that starts like a formula (`=`, `+`, `-`, `@`, a tab
 * or a carriage return) is written with a leading `'`, so `=HYPERLINK(…)` in a job name stays text
 * (OWASP "CSV injection"); plain numbers, negative ones included, are written as they are.
 */

const formulaStart = /^[=+\-@\t\r]/;
const plainNumber = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** One CSV field: formula-like text neutralized, then quoted when it holds a comma, quote, CR or LF. */
export function csvField(value: string): string {
  const text = formulaStart.test(value) && !plainNumber.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A CSV document: CRLF line breaks, header row first. */
export function toCsv(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  return `${[header, ...rows].map((row) => row.map(csvField).join(',')).join('\r\n')}\r\n`;
}
