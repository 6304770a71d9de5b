/**
 * What the demo's process holds as runs accumulate: drives the dashboard demo's loop (one run per job per
 * round, back-to-back), and after every few rounds prints the heap, native memory, the emulator's records
 * and the data directory's contents, as one JSON line per checkpoint.
 * Usage: npm run bench:demo-probe -- [rounds] [every]
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startClosedLoop } from 'setpoint/demo/closed-loop-driver';
import { demoPace } from 'setpoint/demo/demo-pace';
import { demoStorageEnv } from 'setpoint/demo/demo-storage';

const rounds = Number(process.argv[2] ?? 12);
const every = Number(process.argv[3] ?? 3);
const dataDir = join(mkdtempSync(join(tmpdir(), 'setpoint-probe-')), 'demo');
const pace = demoPace(30, 7);
const loop = await startClosedLoop({
  port: 0,
  dataDir,
  seed: 1,
  clockSpeed: pace.clockSpeed,
  startTimeMs: pace.startTimeMs,
  env: {
    ...demoStorageEnv,
    SETPOINT_EVENTLOG_PRUNE_INTERVAL_SECONDS: '5',
    SETPOINT_LOG_LEVEL: 'silent',
  },
});

function files(path: string, into: Map<string, number>, prefix = ''): Map<string, number> {
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const full = join(path, entry.name);
    const key = prefix || entry.name;
    if (entry.isDirectory()) files(full, into, key);
    else into.set(key, (into.get(key) ?? 0) + statSync(full).size);
  }
  return into;
}

const mb = (bytes: number) => (bytes / 1e6).toFixed(1);

/** Native memory outside V8: anonymous pages (malloc arenas, thread stacks) and the live thread count. */
function nativeMemory(): { anonymous: string; threads: number } {
  const kib = (text: string, field: string) =>
    Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? 0);
  const rollup = readFileSync('/proc/self/smaps_rollup', 'utf8');
  const status = readFileSync('/proc/self/status', 'utf8');
  return { anonymous: mb(kib(rollup, 'Anonymous') * 1024), threads: kib(status, 'Threads') };
}
function report(round: number) {
  global.gc?.();
  const memory = process.memoryUsage();
  const state = loop.emulator.context.state;
  let tasks = 0;
  let withDetail = 0;
  let usage = 0;
  let eventLogEntries = 0;
  let executors = 0;
  let events = 0;
  for (const cluster of state.clusters.values()) {
    tasks += cluster.simulation.tasks.length;
    if (cluster.simulation.tasks.length > 0) withDetail += 1;
    usage += cluster.simulation.usage.length;
    executors += cluster.simulation.executors.length;
    events += cluster.simulation.clusterEvents.length;
    eventLogEntries += cluster.eventLog?.length ?? 0;
  }
  console.log(
    JSON.stringify({
      round,
      rss: mb(memory.rss),
      heapUsed: mb(memory.heapUsed),
      external: mb(memory.external),
      arrayBuffers: mb(memory.arrayBuffers),
      ...nativeMemory(),
      clusters: state.clusters.size,
      runs: state.runs.size,
      withDetail,
      tasks,
      usage,
      executors,
      events,
      eventLogEntries,
      webhooks: state.webhookDeliveries.length,
      data: Object.fromEntries([...files(dataDir, new Map())].map(([name, size]) => [name, mb(size)])),
    }),
  );
}
report(0);
for (let round = 1; round <= rounds; round += 1) {
  await Promise.all(loop.jobs.map((job) => loop.runJob(job)));
  if (round === 1) for (const job of loop.jobs) await loop.setSlaFromFirstRun(job);
  if (round % every === 0) report(round);
}
await loop.close();
rmSync(join(dataDir, '..'), { recursive: true, force: true });
