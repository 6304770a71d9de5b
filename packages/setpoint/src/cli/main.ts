import { Command, CommanderError } from '@commander-js/extra-typings';
import { errorKinds } from '@setpoint/foundation/errors';
import { setpointVersion } from '../version.js';
import { type CommandEntry, commandRegistry } from './command-registry.js';
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

/** The command a command line names (`setpoint --debug help serve` names `serve`), if any. */
export function commandNamed(args: string[]): CommandEntry | undefined {
  const words = args.filter((arg) => !arg.startsWith('-'));
  const word = words[0] === 'help' ? words[1] : words[0];
  return commandRegistry.find((entry) => entry.name === word || entry.aliases?.includes(word ?? ''));
}

/** Which commands to load for a command line: the one it names, or all of them for shell completion. */
function commandsToLoad(args: string[] | 'all'): CommandEntry[] {
  if (args === 'all') return commandRegistry;
  const named = commandNamed(args);
  if (!named) return [];
  return named.name === 'completion' ? commandRegistry : [named];
}

/**
 * The program with the commands a command line needs fully defined and the others as
 * stand-ins that carry only their name and description for the root help and "did you mean".
 * `args` are the words after `setpoint`; `'all'` loads every command (tests, completion).
 */
export async function buildProgram(args: string[] | 'all'): Promise<Command> {
  const program = new Command('setpoint')
    .description('Closed-loop cluster optimizer for recurring Apache Spark jobs')
    .version(setpointVersion, '-V, --version', 'print the Setpoint version')
    .option('--debug', 'print stack traces for errors')
    .configureOutput({ outputError: (message, write) => write(usageErrorLine(message)) })
    .exitOverride()
    .addHelpText('after', rootHelpText);
  const loaded = new Map<string, (program: Command) => void>();
  for (const entry of commandsToLoad(args)) loaded.set(entry.name, await entry.load());
  for (const entry of commandRegistry) {
    const register = loaded.get(entry.name);
    if (register) register(program);
    else
      program
        .command(entry.name)
        .aliases(entry.aliases ?? [])
        .description(entry.description);
  }
  const standIns = new Map(
    commandRegistry.filter((entry) => !loaded.has(entry.name)).map((entry) => [entry.name, entry.term]),
  );
  const standard = program.createHelp();
  program.configureHelp({
    subcommandTerm: (command) => standIns.get(command.name()) ?? standard.subcommandTerm(command),
  });
  return program;
}

/** `setpoint … | head -1`: when the reader goes away, stop quietly instead of crashing on EPIPE. */
function exitQuietlyOnClosedPipe(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(0);
      throw error;
    });
  }
}

/** Runs the CLI and resolves to the process exit code; never throws. */
export async function main(argv: string[]): Promise<number> {
  exitQuietlyOnClosedPipe();
  try {
    const program = await buildProgram(argv.slice(2));
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    // --help and --version end parsing with code 0; anything else commander rejects is bad usage.
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : errorKinds.validation.exitCode;
    return reportCliError(error, argv.includes('--debug'));
  }
}
