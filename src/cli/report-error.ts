import { errorKinds, isAppError } from '../errors/index.js';

/** Prints one readable line (a stack only with --debug) and returns the documented exit code. */
export function reportCliError(
  error: unknown,
  debug: boolean,
  stderr: NodeJS.WritableStream = process.stderr,
): number {
  const message = error instanceof Error ? error.message : String(error);
  if (isAppError(error)) {
    stderr.write(`setpoint: ${message}\n`);
    if (debug && error.stack) stderr.write(`${error.stack}\n`);
    return errorKinds[error.kind].exitCode;
  }
  stderr.write(`setpoint: unexpected error: ${message}\n`);
  if (debug && error instanceof Error && error.stack) stderr.write(`${error.stack}\n`);
  else stderr.write('setpoint: run again with --debug for details\n');
  return errorKinds.internal.exitCode;
}
