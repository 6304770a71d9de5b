/** One CSV field per RFC 4180: quoted when it holds a comma, quote, CR or LF; quotes doubled. */
function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** A CSV document per RFC 4180: CRLF line breaks, header row first. */
export function toCsv(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  return `${[header, ...rows].map((row) => row.map(csvField).join(',')).join('\r\n')}\r\n`;
}
