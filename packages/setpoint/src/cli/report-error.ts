import { errorKinds, isAppError, ValidationError } from '@setpoint/foundation/errors';

/** A file-system failure on a path the user gave (`--data-dir` on a file, an unreadable file). */
function fileSystemError(error: unknown): ValidationError | undefined {
  if (!(error instanceof Error)) return undefined;
  const { code, syscall, path } = error as NodeJS.ErrnoException;
  if (!code || !syscall || !path) return undefined;
  const reasons: Record<string, string> = {
    EEXIST: 'a file is in the way',
    ENOENT: 'no such file or directory',
    ENOTDIR: 'a part of the path is not a directory',
    EACCES: 'permission denied',
    EPERM: 'operation not permitted',
    EISDIR: 'is a directory',
    EROFS: 'read-only file system',
    ENOSPC: 'no space left on device',
  };
  return new ValidationError('FILE_SYSTEM', `cannot ${syscall} ${path}: ${reasons[code] ?? code}`, {
    cause: error,
  });
}

/** Prints one readable line (a stack only with --debug) and returns the documented exit code. */
export function reportCliError(
  error: unknown,
  debug: boolean,
  stderr: NodeJS.WritableStream = process.stderr,
): number {
  const known = isAppError(error) ? error : (fileSystemError(error) ?? error);
  const message = known instanceof Error ? known.message : String(known);
  if (isAppError(known)) {
    stderr.write(`setpoint: ${message}\n`);
    if (debug && error instanceof Error && error.stack) stderr.write(`${error.stack}\n`);
    return errorKinds[known.kind].exitCode;
  }
  stderr.write(`setpoint: unexpected error: ${message}\n`);
  if (debug && error instanceof Error && error.stack) stderr.write(`${error.stack}\n`);
  else stderr.write('setpoint: run again with --debug for details\n');
  return errorKinds.internal.exitCode;
}
