import { countOf } from '@setpoint/foundation/words';
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

/** A parse issue in words; `details` are what was tallied (lines' event names, the parts of a capped profile). */
export function describeParseIssue(code: IssueCode, count: number, details: string[]): string {
  switch (code) {
    case 'line-too-long':
      return `${countOf(count, 'line')} longer than the line limit ${count === 1 ? 'was' : 'were'} skipped (${details.join(', ')})`;
    case 'spark-conf-capped':
      return `${count} allow-listed Spark properties were dropped: the profile keeps a bounded number`;
    case 'spark-conf-truncated':
      return `${countOf(count, 'Spark property value')} ${count === 1 ? 'was' : 'were'} cut to the length limit`;
    case 'text-truncated':
      return `${countOf(count, 'text')} (SQL descriptions, failure reasons, names) ${count === 1 ? 'was' : 'were'} cut to the length limit`;
    case 'profile-capped':
      return `the profile lists only part of the run (its totals, analysis and findings count all of it); left out: ${details.join('; ')}`;
  }
}
