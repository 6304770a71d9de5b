import type { Command } from '@commander-js/extra-typings';
import { ValidationError } from '@setpoint/foundation/errors';
import { countOf } from '@setpoint/foundation/words';
import { parseCount } from 'setpoint/cli/option-values';
import { type DriftFormat, type IacDriftResult, line, runIacDriftBench } from '../iac/run-iac-drift-bench.js';

const formats = ['terraform', 'bundle'] as const satisfies readonly DriftFormat[];

/** The figure `docs/benchmarks.md` quotes, then one line per case. */
export function formatIacDrift(result: IacDriftResult): string {
  return [
    `no drift: ${result.held} of ${result.cases.length} cases held (seed ${result.seed}, ${result.seconds.toFixed(0)} s); ${countOf(result.bytesOutsideManaged, 'byte')} changed outside managed attributes`,
    ...result.cases.map(line),
  ].join('\n');
}

export function registerBenchIacDriftCommand(bench: Command): void {
  bench
    .command('iac-drift')
    .description(
      "propose each Job Bank job's recommendation in its Terraform and its bundle (and each EMR workload's in Terraform), merge, deploy to the emulator, and check nothing drifted",
    )
    .option('--seed <n>', 'the emulated workspace’s seed', '1')
    .option(
      '--jobs <names>',
      'Job Bank jobs and EMR workloads by name, comma-separated (default: all; the two-cluster pipeline is two projects)',
    )
    .option('--no-emr', 'leave the EMR workloads out')
    .option('--formats <list>', 'terraform, bundle or both, comma-separated', 'terraform,bundle')
    .option('--json', 'print the results as JSON')
    .addHelpText(
      'after',
      `
Examples:
  setpoint bench iac-drift
  setpoint bench iac-drift --jobs "Daily aggregation" --formats terraform --no-emr --json

Each case: the job's code in a real bare git repository, linked to its project; one run, whose
recommendation auto-apply proposes there; the branch merged; the file deployed to the emulator as
terraform apply / bundle deploy would (EMR: the next cluster launched from the file); then the job read
again (its cluster equals the file's), the recommendation's diff against the merged code (empty), the
apply history (one entry), and one more run (on the file's cluster).`,
    )
    .action(async (options) => {
      const chosen = options.formats.split(',').map((format) => format.trim());
      for (const format of chosen)
        if (!(formats as readonly string[]).includes(format))
          throw new ValidationError(
            'INVALID_OPTION',
            `--formats expects terraform, bundle or both, comma-separated, got "${options.formats}"`,
          );
      const result = await runIacDriftBench({
        seed: parseCount('--seed', options.seed, 1, 1_000_000),
        ...(options.jobs ? { jobs: options.jobs.split(',').map((name) => name.trim()) } : {}),
        emr: options.emr,
        formats: chosen as DriftFormat[],
        // progress on stderr, so --json's stdout stays one document
        log: (text) => process.stderr.write(`${text}\n`),
      });
      process.stdout.write(
        options.json ? `${JSON.stringify(result, null, 2)}\n` : `${formatIacDrift(result)}\n`,
      );
      if (result.held < result.cases.length) process.exitCode = 1;
    });
}
