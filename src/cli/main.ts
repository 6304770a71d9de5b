import { Command, CommanderError } from '@commander-js/extra-typings';
import { setpointVersion } from '../version.js';
import { commandRegistry } from './command-registry.js';
import { reportCliError } from './report-error.js';

export function buildProgram(): Command {
  const program = new Command('setpoint')
    .description('Closed-loop cluster optimizer for recurring Apache Spark jobs')
    .version(setpointVersion, '-V, --version', 'print the Setpoint version')
    .option('--debug', 'print stack traces for errors')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  for (const register of commandRegistry) register(program);
  return program;
}

/** Runs the CLI and resolves to the process exit code; never throws. */
export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    return reportCliError(error, argv.includes('--debug'));
  }
}
