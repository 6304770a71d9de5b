#!/usr/bin/env node
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write('setpoint: not built yet; run `npm run build` (npm ci does it for you)\n');
  process.exit(70);
}
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  // The most frequent probe of an installed CLI answers without loading the command parser.
  const { setpointVersion } = await import(new URL('../dist/version.js', import.meta.url).href);
  process.stdout.write(`${setpointVersion}\n`);
} else {
  const { main } = await import(entry.href);
  process.exitCode = await main(process.argv);
}
