import type { Command } from '@commander-js/extra-typings';
import { ConfigError } from '@setpoint/foundation/errors';
import { isMissingPackage } from '../../demo/load-emulator.js';

/**
 * The benchmarks live in their own package, which depends on the product: the product names it only here,
 * at run time, so a product install may leave it out and the product's build never waits for it.
 */
const benchPackage = '@setpoint/bench';

const description = "measure Setpoint's optimizer against published baselines";

type RegisterBench = (program: Command) => void;

/** `setpoint bench <suite>`, defined by `@setpoint/bench` when it is installed. */
export async function loadBenchCommand(
  load: () => Promise<unknown> = () => import(benchPackage),
): Promise<RegisterBench> {
  try {
    const { registerBenchCommand } = (await load()) as { registerBenchCommand?: unknown };
    if (typeof registerBenchCommand !== 'function')
      throw new ConfigError(`${benchPackage} does not define registerBenchCommand: reinstall it`);
    return registerBenchCommand as RegisterBench;
  } catch (error) {
    if (!isMissingPackage(error, benchPackage)) throw error;
    return (program: Command) => registerMissingBench(program, error);
  }
}

/** Without the package, `setpoint bench …` still parses (and completes) and fails with one line. */
function registerMissingBench(program: Command, cause: unknown): void {
  program
    .command('bench')
    .description(description)
    .argument('[suite...]')
    .allowUnknownOption()
    .action(() => {
      throw new ConfigError(
        `the benchmarks (${benchPackage}) are not installed: they ship with the repository, not the product. From a clone of the repository, run \`npm ci\` at its root.`,
        { cause },
      );
    });
}
