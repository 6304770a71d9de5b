import { readFile } from 'node:fs/promises';
import { NotFoundError, ValidationError } from '@setpoint/foundation/errors';
import { type SweepCsvRow, sweepColumns, sweepRowSchema } from './schema.js';

/** Splits one CSV line, honouring double-quoted fields with "" escapes. */
export function splitCsvLine(line: string): string[] {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const char = line[i];
    if (quoted) {
      if (char === '"' && line[i + 1] === '"') {
        field += '"';
        i++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      fields.push(field);
      field = '';
    } else field += char;
  }
  fields.push(field);
  return fields;
}

/** Parses sweep CSV text; errors name the source, the line and the column. */
export function parseSweepCsv(text: string, source: string): SweepCsvRow[] {
  const lines = text.split(/\r?\n/);
  const header = splitCsvLine(lines[0] ?? '').map((name) => name.trim());
  const missing = sweepColumns.filter((column) => !header.includes(column));
  if (missing.length > 0) {
    throw new ValidationError(
      'SWEEP_CSV_HEADER',
      `${source}:1: missing column(s) ${missing.join(', ')}; expected header ${sweepColumns.join(',')}`,
    );
  }
  const positions = sweepColumns.map((column) => header.indexOf(column));
  const rows: SweepCsvRow[] = [];
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line.trim() === '') continue;
    const fields = splitCsvLine(line);
    if (fields.length !== header.length) {
      throw new ValidationError(
        'SWEEP_CSV_ROW',
        `${source}:${i + 1}: expected ${header.length} fields, found ${fields.length}`,
      );
    }
    const record = Object.fromEntries(
      sweepColumns.map((column, c) => [column, fields[positions[c] as number]]),
    );
    const parsed = sweepRowSchema.safeParse(record);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const column = String(issue?.path[0] ?? 'row');
      throw new ValidationError(
        'SWEEP_CSV_ROW',
        `${source}:${i + 1}: column ${column} ${issue?.message ?? 'is invalid'} (got ${JSON.stringify(record[column] ?? '')})`,
      );
    }
    rows.push(parsed.data);
  }
  if (rows.length === 0) throw new ValidationError('SWEEP_CSV_EMPTY', `${source}: no runs after the header`);
  return rows;
}

export async function readSweepCsv(path: string): Promise<SweepCsvRow[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new NotFoundError(
      'SWEEP_CSV_NOT_FOUND',
      `cannot read sweep dataset ${path}: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
  return parseSweepCsv(text, path);
}
