import type { ParseIssue } from './run-profile.js';

type IssueCode = ParseIssue['code'];

interface Tally {
  count: number;
  lines: number[];
  detail: Set<string>;
}

const maxSampleLines = 5;
const maxDetails = 5;

/** Tallies what the reader tolerated, per kind, into the profile's `parse.issues`. */
export class ParseIssues {
  private readonly tallies = new Map<IssueCode, Tally>();

  add(code: IssueCode, options: { line?: number; detail?: string; count?: number } = {}): void {
    let tally = this.tallies.get(code);
    if (!tally) {
      tally = { count: 0, lines: [], detail: new Set() };
      this.tallies.set(code, tally);
    }
    tally.count += options.count ?? 1;
    if (options.line !== undefined && tally.lines.length < maxSampleLines) tally.lines.push(options.line);
    if (options.detail !== undefined && tally.detail.size < maxDetails) tally.detail.add(options.detail);
  }

  list(describe: (code: IssueCode, count: number, details: string[]) => string): ParseIssue[] {
    return [...this.tallies].map(([code, tally]) => ({
      code,
      count: tally.count,
      message: describe(code, tally.count, [...tally.detail]),
      ...(tally.lines.length > 0 ? { lines: tally.lines } : {}),
    }));
  }
}
