/**
 * CLI start-up: `setpoint --version` and `setpoint --help` against plain `node -e 0`, interleaved in one
 * run so machine load hits all three alike. Medians and ratios; the section "CLI start-up" of
 * docs/benchmarks.md is rewritten. Usage: npm run bench:cli [-- --rounds 21]
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { median } from '@setpoint/foundation/statistics';
import { machineLine, repoRoot, writeBenchmarkSection } from './docs-section.js';

const roundsFlag = process.argv.indexOf('--rounds');
const rounds = roundsFlag === -1 ? 21 : Number(process.argv[roundsFlag + 1]);
if (!Number.isInteger(rounds) || rounds < 3) throw new Error('--rounds must be an integer ≥ 3');

const bin = join(repoRoot, 'bin/setpoint.js');
const subjects = [
  { label: '`node -e 0`', args: ['-e', '0'] },
  { label: '`setpoint --version`', args: [bin, '--version'] },
  { label: '`setpoint --help`', args: [bin, '--help'] },
] as const;

function timeOnce(args: readonly string[]): number {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (result.status !== 0)
    throw new Error(`node ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return seconds;
}

const samples = subjects.map(() => [] as number[]);
timeOnce(subjects[1].args); // warm the file cache once
for (let round = 0; round < rounds; round += 1) {
  for (const [index, subject] of subjects.entries()) samples[index]?.push(timeOnce(subject.args));
}
const medianOf = (values: number[] | undefined) => median(values ?? []) ?? Number.NaN;
const baseline = medianOf(samples[0]);
const goal = 0.3;
const rows = subjects.map((subject, index) => {
  const seconds = medianOf(samples[index]);
  const verdict = index === 0 ? '—' : seconds <= goal ? `≤ ${goal} s — met` : `≤ ${goal} s — missed`;
  return `| ${subject.label} | ${seconds.toFixed(3)} s | ${(seconds / baseline).toFixed(2)}× | ${verdict} |`;
});
const section = [
  '## CLI start-up',
  '',
  `Command: \`npm run bench:cli -- --rounds ${rounds}\``,
  `${machineLine()} Load average at the start: ${(await import('node:os')).loadavg()[0]?.toFixed(1)}.`,
  `Each command runs ${rounds} times, interleaved with the others; the table shows medians of wall time from spawn to exit. Command modules load only when their command runs, so \`--version\` and \`--help\` load commander and the CLI's entry alone.`,
  '',
  '| command | median | × `node -e 0` | goal |',
  '| --- | --- | --- | --- |',
  ...rows,
  '',
].join('\n');
process.stdout.write(section);
writeBenchmarkSection('## CLI start-up', section);
