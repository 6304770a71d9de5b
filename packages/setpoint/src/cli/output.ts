import Table from 'cli-table3';
import pc from 'picocolors';

/** Colour only when a person is looking at a terminal (and NO_COLOR is unset). */
export function colorEnabled(stream: NodeJS.WriteStream = process.stdout): boolean {
  return Boolean(stream.isTTY) && !process.env.NO_COLOR;
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export type Cell = string | number | null | undefined;

const tableBorderChars = [
  'top',
  'top-mid',
  'top-left',
  'top-right',
  'bottom',
  'bottom-mid',
  'bottom-left',
  'bottom-right',
  'left',
  'left-mid',
  'mid',
  'mid-mid',
  'right',
  'right-mid',
  'middle',
] as const;

/** An aligned table; headers bold on a TTY; no line ends in padding (scripts split rows on runs of spaces). */
export function printTable(headers: string[], rows: Cell[][]): void {
  const color = colorEnabled();
  const table = new Table({
    head: headers.map((header) => (color ? pc.bold(header) : header)),
    style: { head: [], border: [], compact: true, 'padding-left': 0, 'padding-right': 2 },
    chars: Object.fromEntries(tableBorderChars.map((name) => [name, ''])),
  });
  for (const row of rows)
    table.push(row.map((cell) => (cell === null || cell === undefined ? '—' : String(cell))));
  process.stdout.write(`${table.toString().replace(/[ \t]+$/gm, '')}\n`);
}

export function printFields(fields: [string, Cell][]): void {
  const width = Math.max(...fields.map(([name]) => name.length));
  const color = colorEnabled();
  for (const [name, value] of fields) {
    const label = name.padEnd(width);
    process.stdout.write(
      `${color ? pc.dim(label) : label}  ${value === null || value === undefined ? '—' : value}\n`,
    );
  }
}

/** Money to the cent: `$0.35`, `-$1.20`, `$1,234.50`. */
export function formatUsd(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  const cents = Math.round(Math.abs(value) * 100) / 100;
  const text = cents.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  return `${value < 0 && cents > 0 ? '-' : ''}$${text}`;
}

export function formatTime(epochMs: number | null | undefined): string {
  return epochMs ? new Date(epochMs).toISOString().replace('T', ' ').slice(0, 16) : '—';
}
