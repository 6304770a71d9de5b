#!/usr/bin/env node
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// AWS SDK releases after January 2027 need Node.js 22; on Node 20 the SDK says so in an eight-line warning
// on every EMR command and the demo. Setpoint supports Node 20 until then (README, "Requirements") and says
// so itself; the SDK's own switch (AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED, documented in its
// Node.js 20 end-of-support announcement) is set here unless the user chose a value.
if (Number(process.versions.node.split('.')[0]) < 22)
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

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
  // The dashboard demo runs for a long time on worker threads: on glibc it runs in a child with bounded
  // malloc settings (see bounded-malloc.ts); loaded only for `demo`, so other commands start as fast.
  const bounded =
    args.find((arg) => !arg.startsWith('-')) === 'demo'
      ? await import(new URL('../dist/cli/bounded-malloc.js', import.meta.url).href)
      : null;
  if (bounded?.wantsBoundedMalloc(args, process.env, process.platform)) {
    process.exitCode = await bounded.runWithBoundedMalloc(process.argv);
  } else {
    const { main } = await import(entry.href);
    process.exitCode = await main(process.argv);
  }
}
