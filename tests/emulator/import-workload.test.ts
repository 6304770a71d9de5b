import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { workloadFromProfile } from '@setpoint/databricks-emulator/import/workload-from-profile';
import { simulateRun } from '@setpoint/databricks-emulator/physics/simulate-run';
import { workloadSchema } from '@setpoint/databricks-emulator/workloads/schema';
import {
  findShippedWorkload,
  shippedWorkloads,
} from '@setpoint/databricks-emulator/workloads/shipped-workloads';
import { analyzeEventLog } from 'setpoint/eventlog/index';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const fixture = join(import.meta.dirname, '../fixtures/emulator/local-1422981780767');
const scratch = mkdtempSync(join(tmpdir(), 'setpoint-import-'));

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('import-workload', () => {
  it('turns a simulated event log back into a workload with the same stages, tasks and bytes', async () => {
    const original = findShippedWorkload('join-heavy-etl')!;
    const simulated = simulateRun(original, { node_type_id: 'm5.xlarge', num_workers: 4 }, 1, 0, {
      weeksElapsed: 0,
    });
    const path = join(scratch, 'simulated-eventlog');
    writeFileSync(path, `${simulated.eventLogLines.join('\n')}\n`);
    const imported = workloadFromProfile(await analyzeEventLog(path), 'round-trip');
    const stages = (workload: typeof original) => workload.jobs.flatMap((job) => job.stages);
    expect(stages(imported).map((stage) => stage.tasks)).toEqual(
      stages(original).map((stage) => stage.tasks),
    );
    expect(stages(imported).map((stage) => stage.parents)).toEqual(
      stages(original).map((stage) => stage.parents),
    );
    const input = (workload: typeof original) =>
      stages(workload).reduce((sum, stage) => sum + stage.inputBytes, 0);
    expect(input(imported) / input(original)).toBeGreaterThan(0.9);
    expect(input(imported) / input(original)).toBeLessThan(1.1);
  });

  it.each(shippedWorkloads.map((workload) => workload.name))(
    'replays an imported %s close to the original on the cluster it was observed on',
    async (name) => {
      const original = findShippedWorkload(name)!;
      const spec = {
        node_type_id: 'm5.xlarge',
        num_workers: 4,
        aws_attributes: { availability: 'ON_DEMAND' },
      };
      const simulated = simulateRun(original, spec, 1, 0, { weeksElapsed: 0 });
      const path = join(scratch, `${name}-eventlog`);
      writeFileSync(path, `${simulated.eventLogLines.join('\n')}\n`);
      const imported = workloadFromProfile(await analyzeEventLog(path), `${name}-imported`);
      const replay = simulateRun(imported, spec, 1, 0, { weeksElapsed: 0 });
      expect(replay.outcome).toBe(simulated.outcome);
      expect(replay.runtimeMs / simulated.runtimeMs).toBeGreaterThan(0.75);
      expect(replay.runtimeMs / simulated.runtimeMs).toBeLessThan(1.3);
    },
  );

  it('imports a real Spark log through the CLI and the result loads as a workload model', async () => {
    const out = join(scratch, 'workloads', 'spark-local.json');
    const { stdout } = await run('node', [
      'bin/setpoint.js',
      'emulator',
      'import-workload',
      fixture,
      '--name',
      'spark-local',
      '--out',
      out,
      '--json',
    ]);
    expect(JSON.parse(stdout)).toMatchObject({ name: 'spark-local', jobs: 3, stages: 4, tasks: 32 });
    const model = workloadSchema.parse(JSON.parse(readFileSync(out, 'utf8')));
    expect(model.jobs.flatMap((job) => job.stages).every((stage) => stage.cpuSecondsPerTask > 0)).toBe(true);
  });

  it('rejects a name that is not kebab-case with a one-line error', async () => {
    const failure = await run('node', [
      'bin/setpoint.js',
      'emulator',
      'import-workload',
      fixture,
      '--name',
      'Bad Name',
    ]).catch((error: { code: number; stderr: string }) => error);
    expect(failure).toMatchObject({ code: 2 });
    expect((failure as { stderr: string }).stderr).toMatch(/^setpoint: Workload names are kebab-case/);
  });
});
