import type * as DatabricksEmulator from '@setpoint/databricks-emulator';
import { ConfigError } from '@setpoint/foundation/errors';

export type EmulatorPackage = typeof DatabricksEmulator;

const packageName = '@setpoint/databricks-emulator';

/**
 * The Databricks emulator package, loaded on first use. Only the demo, `setpoint emulator` and the simulated
 * benches (`bench sim`, `bench jobbank`) need it; the service, the worker and every other command run
 * without it, so it is an optional peer dependency that a product install may leave out.
 */
export function loadEmulator(
  load: () => Promise<EmulatorPackage> = () => import('@setpoint/databricks-emulator'),
): Promise<EmulatorPackage> {
  return load().catch((error: unknown) => {
    throw isMissingPackage(error, packageName) ? missingEmulator(error) : error;
  });
}

/** Whether loading a package failed because the package itself is not installed (not one of its imports). */
export function isMissingPackage(error: unknown, name: string): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return (
    (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
    String((error as Error).message).includes(name)
  );
}

function missingEmulator(cause: unknown): ConfigError {
  return new ConfigError(
    `the Databricks emulator (${packageName}) is not installed: the demo, \`setpoint emulator\` and the simulated benches need it (the service does not). From a clone of the repository, run \`npm ci\` at its root; elsewhere, \`npm install ${packageName}\`.`,
    { cause },
  );
}
