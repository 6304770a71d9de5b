/** `setpoint bench <suite>`: the product's CLI loads this package on demand (cli/commands/bench.ts). */
export { registerBenchCommand } from './cli/bench.js';
