#!/usr/bin/env node
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write('setpoint: not built yet; run `npm run build` (npm ci does it for you)\n');
  process.exit(70);
}
const { main } = await import(entry.href);
process.exitCode = await main(process.argv);
