/** A replacement of `text.slice(start, end)`: how every editor changes a file, so untouched bytes stay. */
export interface Splice {
  start: number;
  end: number;
  text: string;
}

/**
 * Applies splices that do not overlap; an overlap is a bug in the editor, not in the file. Insertions at
 * one offset keep the order they are given in (a nested block's new line before its parent's).
 */
export function applySplices(text: string, splices: readonly Splice[]): string {
  const ordered = splices
    .map((splice, index) => ({ ...splice, index }))
    .sort((a, b) => b.start - a.start || b.end - a.end || b.index - a.index);
  let result = text;
  let limit = Number.POSITIVE_INFINITY;
  for (const splice of ordered) {
    if (splice.end > limit) throw new Error(`overlapping edits at offset ${splice.start}`);
    result = result.slice(0, splice.start) + splice.text + result.slice(splice.end);
    limit = splice.start;
  }
  return result;
}

export function lineStart(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}

/** The offset just past the line's newline (or the end of the text). */
export function nextLineStart(text: string, offset: number): number {
  const newline = text.indexOf('\n', offset);
  return newline < 0 ? text.length : newline + 1;
}

/** The whitespace a line starts with. */
export function indentationOf(text: string, offset: number): string {
  const start = lineStart(text, offset);
  return /^[ \t]*/.exec(text.slice(start))?.[0] ?? '';
}

/** Whether only spaces or tabs stand between the line's start and `offset`. */
export function startsItsLine(text: string, offset: number): boolean {
  return /^[ \t]*$/.test(text.slice(lineStart(text, offset), offset));
}

export function isBlankLine(text: string, start: number): boolean {
  return /^[ \t]*\r?$/.test(text.slice(start, nextLineStart(text, start)).replace(/\n$/, ''));
}

/** The text's line ending (`\r\n` when its first line ends so), for lines an editor adds. */
export function lineEnding(text: string): string {
  const newline = text.indexOf('\n');
  return newline > 0 && text[newline - 1] === '\r' ? '\r\n' : '\n';
}
