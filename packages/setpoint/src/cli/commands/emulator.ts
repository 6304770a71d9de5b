import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Command } from '@commander-js/extra-typings';
import { ValidationError } from '@setpoint/foundation/errors';
import type { EmulatorPackage } from '../../demo/load-emulator.js';
import { loadEmulator } from '../../demo/load-emulator.js';
import { analyzeEventLog } from '../../eventlog/index.js';
import { catalogNodeSpecs } from '../../pricing/catalog-node-specs.js';
import { parseNumberOption } from '../option-values.js';

const parseNumber = (raw: string, flag: string) => parseNumberOption(flag, raw, { min: 0 });

function parseStartTime(raw: string): number {
  const time = Date.parse(raw);
  if (Number.isNaN(time)) {
    throw new ValidationError('CLI_INVALID_OPTION', `--start-time must be an ISO date-time, got ${raw}`);
  }
  return time;
}

function readFaults(path: string, { faultRulesSchema }: EmulatorPackage) {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ValidationError(
      'CLI_INVALID_OPTION',
      `--faults ${path}: ${(error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ')}`,
    );
  }
  const parsed = faultRulesSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ValidationError(
      'CLI_INVALID_OPTION',
      `--faults ${path} is not a list of fault rules: ${parsed.error.issues[0]?.message}`,
    );
  }
  return parsed.data;
}

function waitForSignal(): Promise<void> {
  return new Promise((resolve) => {
    const onSignal = () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolve();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

export function registerEmulatorCommand(program: Command): void {
  const emulator = program
    .command('emulator')
    .description(
      'run a local Databricks workspace emulator whose jobs run on simulated clusters (the Job Bank)',
    )
    .option('--port <port>', 'port to listen on (0 picks a free one)', '8089')
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .option('--seed <n>', 'seed for every simulated run (same seed, same results)', '1')
    // No commander defaults for these two: they are the emulator package's, which loads only when the
    // command runs (the product's CLI starts without it).
    .option(
      '--clock-speed <x>',
      "simulated seconds per real second (0 freezes the clock; default: the emulator's, 600)",
    )
    .option(
      '--token <token>',
      "the Bearer token clients must send (default: the emulator's, dapi-setpoint-emulator)",
    )
    .option(
      '--state <dir>',
      'also write DBFS and /Volumes files (delivered cluster logs) below this directory',
    )
    .option('--faults <file>', 'JSON list of fault rules to start with (see docs/emulator.md)')
    .option('--workloads <dir>', 'extra workload models (*.json from import-workload) to serve')
    .option(
      '--start-time <iso>',
      'simulated time at start, e.g. 2026-01-05T06:00:00Z (default: an hour of real time back at the clock speed, at most 30 days; the clock then never passes real time)',
    )
    .option('--rate-limit-scale <x>', 'multiply the published API rate limits (0 disables them)', '1')
    .option('--no-preload', 'start without the shipped Job Bank jobs')
    .option(
      '--no-memory-s3',
      "do not keep EMR steps' S3 event logs in memory at <url>/s3 (then they are not written anywhere)",
    )
    .option('--json', 'print the first line as JSON')
    .addHelpText(
      'after',
      `
The first line on stdout says where it listens, e.g.
  setpoint-emulator listening url=http://127.0.0.1:8089 host=127.0.0.1 port=8089 token=dapi-setpoint-emulator

Examples:
  setpoint emulator
  setpoint emulator --port 0 --clock-speed 3600 --seed 7 --start-time 2026-01-05T06:00:00Z
  setpoint emulator --faults faults.json --state ./.emulator
  DATABRICKS_HOST=http://127.0.0.1:8089 DATABRICKS_TOKEN=dapi-setpoint-emulator python my_script.py`,
    )
    .action(async (options) => {
      const emulatorPackage = await loadEmulator();
      const { startEmulator, WorkloadRegistry } = emulatorPackage;
      const workloads = new WorkloadRegistry();
      if (options.workloads) workloads.loadDirectory(options.workloads);
      const running = await startEmulator({
        nodeSpecs: catalogNodeSpecs,
        host: options.host,
        port: parseNumber(options.port, '--port'),
        seed: parseNumber(options.seed, '--seed'),
        clockSpeed:
          options.clockSpeed === undefined
            ? emulatorPackage.defaultClockSpeed
            : parseNumber(options.clockSpeed, '--clock-speed'),
        token: options.token ?? emulatorPackage.defaultEmulatorToken,
        rateLimitScale: parseNumber(options.rateLimitScale, '--rate-limit-scale'),
        preloadJobs: options.preload,
        memoryS3: options.memoryS3,
        workloads,
        ...(options.faults ? { faults: readFaults(options.faults, emulatorPackage) } : {}),
        // a clock ahead of real time dates runs in the future (a dashboard's "last 30 days" misses them);
        // a chosen start time is the user's to keep
        ...(options.startTime
          ? { startTimeMs: parseStartTime(options.startTime) }
          : { neverAheadOfRealTime: true }),
        ...(options.state ? { stateDirectory: options.state } : {}),
      });
      const line = options.json
        ? JSON.stringify({
            url: running.url,
            host: running.host,
            port: running.port,
            token: running.token,
            // the emulator's own test principals, for OAuth M2M and Entra ID clients
            service_principals: running.oauth.principals.map((principal) => ({
              kind: principal.kind,
              client_id: principal.clientId,
              client_secret: principal.clientSecret,
              ...(principal.tenantId ? { tenant_id: principal.tenantId } : {}),
            })),
          })
        : `setpoint-emulator listening url=${running.url} host=${running.host} port=${running.port} token=${running.token}`;
      process.stdout.write(`${line}\n`);
      await waitForSignal();
      await running.close();
    });

  emulator
    .command('import-workload')
    .description('turn a Spark event log into a workload model the emulator can run')
    .argument('<eventlog>', 'an event log file or directory (any layout and codec `setpoint analyze` reads)')
    .requiredOption('--name <name>', 'workload name (kebab-case); tasks run it via a file named <name>.py')
    .option('--out <file>', 'write the model here instead of printing it')
    .option('--json', 'with --out, print a JSON summary')
    .addHelpText(
      'after',
      `
Examples:
  setpoint emulator import-workload ./eventlog --name nightly-etl --out workloads/nightly-etl.json
  setpoint emulator --workloads workloads   # then run a task with spark_python_task.python_file = "nightly-etl.py"`,
    )
    .action(async (eventLog, options) => {
      const { workloadFromProfile } = await loadEmulator();
      const profile = await analyzeEventLog(eventLog);
      const workload = workloadFromProfile(profile, options.name);
      const text = `${JSON.stringify(workload, null, 2)}\n`;
      if (!options.out) {
        process.stdout.write(text);
        return;
      }
      mkdirSync(dirname(options.out), { recursive: true });
      writeFileSync(options.out, text);
      const stages = workload.jobs.reduce((sum, job) => sum + job.stages.length, 0);
      const tasks = workload.jobs.reduce(
        (sum, job) => sum + job.stages.reduce((inner, stage) => inner + stage.tasks, 0),
        0,
      );
      process.stdout.write(
        // `--json` may land on the parent command, which has an option of the same name.
        options.json || emulator.opts().json
          ? `${JSON.stringify({ name: workload.name, out: options.out, jobs: workload.jobs.length, stages, tasks })}\n`
          : `Workload ${workload.name}: ${workload.jobs.length} jobs, ${stages} stages, ${tasks} tasks → ${options.out}\n`,
      );
    });
}
