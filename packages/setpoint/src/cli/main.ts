import { Command, CommanderError } from '@commander-js/extra-typings';
import { errorKinds } from '@setpoint/foundation/errors';
import { setpointVersion } from '../version.js';
import { commandRegistry } from './command-registry.js';
import { rootHelpText } from './help-text.js';
import { reportCliError } from './report-error.js';

/** Commander's usage errors as one `setpoint:` line, like every other error. */
function usageErrorLine(message: string): string {
  const text = message
    .replace(/^error: /, '')
    .replace(/\s*\n\s*/g, ' ')
    .trim();
  return `setpoint: ${text} (run with --help for usage)\n`;
}

export function buildProgram(): Command {
  const program = new Command('setpoint')
    .description('Closed-loop cluster optimizer for recurring Apache Spark jobs')
    .version(setpointVersion, '-V, --version', 'print the Setpoint version')
    .option('--debug', 'print stack traces for errors')
    .configureOutput({ outputError: (message, write) => write(usageErrorLine(message)) })
    .exitOverride()
    .addHelpText('after', rootHelpText);
  for (const register of commandRegistry) register(program);
  return program;
}

/** Runs the CLI and resolves to the process exit code; never throws. */
/** `setpoint … | head -1`: when the reader goes away, stop quietly instead of crashing on EPIPE. */
function exitQuietlyOnClosedPipe(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(0);
      throw error;
    });
  }
}

export async function main(argv: string[]): Promise<number> {
  exitQuietlyOnClosedPipe();
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    // --help and --version end parsing with code 0; anything else commander rejects is bad usage.
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : errorKinds.validation.exitCode;
    return reportCliError(error, argv.includes('--debug'));
  }
}
