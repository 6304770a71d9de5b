import type { Command } from '@commander-js/extra-typings';
import { registerBenchIacDriftCommand } from './bench-iac-drift.js';
import { registerBenchJobBankCommand } from './bench-jobbank.js';
import { registerBenchSimCommand } from './bench-sim.js';
import { registerBenchSweepCommand } from './bench-sweep.js';

/** `setpoint bench <suite>`: the optimizer's benchmarks, one file per suite. */
export function registerBenchCommand(program: Command): void {
  const bench = program
    .command('bench')
    .description("measure Setpoint's optimizer against published baselines")
    .addHelpText(
      'after',
      `
Examples:
  setpoint bench sweep --dataset tests/fixtures/datasets/scout-sweep.csv
  setpoint bench sweep --dataset my-sweep.csv --sla 1.1 --seeds 5 --json
  setpoint bench sim --runs 12 --seeds 5 --plots bench-plots
  setpoint bench jobbank --runs 12 --seeds 3
  setpoint bench iac-drift`,
    );
  registerBenchSweepCommand(bench);
  registerBenchSimCommand(bench);
  registerBenchJobBankCommand(bench);
  registerBenchIacDriftCommand(bench);
}
