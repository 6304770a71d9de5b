/**
 * `node packages/bench/dist/peers/engine-child.js <file> [--parse-threads 1|2]`: Setpoint's engine on
 * one event log, in a process of its own so that `npm run bench:peers` measures it as it measures the
 * peers. Prints one JSON line with the profile's counts, to check against what the peers read, and
 * the main thread's CPU seconds.
 */
import { readFileSync } from 'node:fs';
import { analyzeEventLog } from 'setpoint/eventlog/index';

/** CPU seconds of this process's main thread (Linux), or NaN: with two threads, the parsing thread's share. */
function mainThreadCpuSeconds(): number {
  try {
    const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8')
      .replace(/^.*\) /s, '')
      .split(' ')
      .map(Number);
    // after "pid (comm) ", utime and stime are fields 14 and 15, indexes 11 and 12 here; USER_HZ = 100
    return ((fields[11] ?? Number.NaN) + (fields[12] ?? Number.NaN)) / 100;
  } catch {
    return Number.NaN;
  }
}

const [file, threadsOption, threadsValue] = process.argv.slice(2);
const parseThreads = threadsOption === '--parse-threads' ? Number(threadsValue) : 1;
if (!file || (parseThreads !== 1 && parseThreads !== 2)) {
  process.stderr.write('usage: engine-child.js <event log> [--parse-threads 1|2]\n');
  process.exit(2);
}
const profile = await analyzeEventLog(file, { parseThreads });
const stageMedianTaskMsSum = profile.stages.reduce((sum, stage) => sum + stage.medianTaskMs, 0);
process.stdout.write(
  `${JSON.stringify({
    tasks: profile.totals.tasks,
    stages: profile.stages.filter((stage) => stage.tasks > 0).length,
    jobs: profile.jobs.length,
    sqlExecutions: profile.sqlExecutions.length,
    executorRunTimeMs: profile.totals.executorRunTimeMs,
    stageMedianTaskMsSum,
    bytesRead: profile.parse.bytesRead,
    mainThreadCpuSeconds: mainThreadCpuSeconds(),
  })}\n`,
);
