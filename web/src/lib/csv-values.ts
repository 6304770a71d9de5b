/** One raw value of a CSV export: numbers stay numbers (units live in the header), null is empty. */
export type CsvValue = string | number | boolean | null;

export interface CsvField<Row> {
  /** snake_case header with the unit as suffix: `cost_usd`, `runtime_s`. */
  header: string;
  value(row: Row): CsvValue;
}

/** A CSV cell for a raw value: plain decimal numbers without grouping, floating-point noise trimmed. */
export function csvText(value: CsvValue): string {
  if (value === null) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(Number(value.toPrecision(12))) : '';
  return String(value);
}

/** The header row and data rows of an export of `fields` over `rows`. */
export function csvTable<Row>(
  fields: ReadonlyArray<CsvField<Row>>,
  rows: readonly Row[],
): { header: string[]; rows: string[][] } {
  return {
    header: fields.map((field) => field.header),
    rows: rows.map((row) => fields.map((field) => csvText(field.value(row)))),
  };
}
