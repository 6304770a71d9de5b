import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';

export const repoRoot = join(import.meta.dirname, '../..');

/** "Date: …. Machine: …" for a benchmark section. */
export function machineLine(): string {
  return `Date: ${new Date().toISOString().slice(0, 10)}. Machine: ${cpus().length} cores (${cpus()[0]?.model.trim() ?? 'unknown CPU'}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}.`;
}

/** Replaces the section headed `heading` in docs/benchmarks.md (or appends it). */
export function writeBenchmarkSection(heading: string, section: string): void {
  const docs = join(repoRoot, 'docs/benchmarks.md');
  let text = readFileSync(docs, 'utf8');
  const start = text.indexOf(`\n${heading}\n`);
  if (start === -1) text = `${text.trimEnd()}\n\n${section.trimEnd()}\n`;
  else {
    const next = text.indexOf('\n## ', start + 1);
    text = `${text.slice(0, start + 1)}${section.trimEnd()}\n${next === -1 ? '' : `\n${text.slice(next + 1)}`}`;
  }
  writeFileSync(docs, text);
}
