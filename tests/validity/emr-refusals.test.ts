import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { type RunningEmulator, startEmulator } from '@setpoint/databricks-emulator/server/build-emulator';
import type { EmrChoice } from 'setpoint/platforms/emr/recommender/emr-choice';
import { emrConfigurationOf } from 'setpoint/platforms/emr/recommender/emr-configuration';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { pythonForMoto } from '../support/moto-server.js';
import { describeFull } from '../support/tiers.js';

type Answer = { code: string; status: number; message: string } | null;

const choice: EmrChoice = {
  collection: 'instance-groups',
  primaryType: 'm5.xlarge',
  workerType: 'r5.2xlarge',
  core: 2,
  task: 4,
  taskMarket: 'spot',
  volumes: [{ volumeType: 'gp3', sizeGb: 128 }],
  rootVolumeGb: null,
  longRunning: false,
  managedScaling: true,
};
const launch = {
  Name: 'nightly-orders',
  ReleaseLabel: 'emr-7.2.0',
  ...(emrConfigurationOf(choice) as { Instances: { InstanceGroups: Array<Record<string, unknown>> } }),
};
const withGroups = (change: (group: Record<string, unknown>) => Record<string, unknown>) => ({
  ...launch,
  Instances: { InstanceGroups: launch.Instances.InstanceGroups.map(change) },
});

describeFull(
  "the emulator's EMR refusals, read by boto3 as it reads EMR's and moto's",
  'boto3 and moto from PyPI (SETPOINT_PYTHON)',
  () => {
    let emulator: RunningEmulator;
    let dir: string;

    beforeAll(async () => {
      emulator = await startEmulator({ port: 0, clockSpeed: 0, preloadJobs: false });
      dir = mkdtempSync(path.join(tmpdir(), 'setpoint-emr-refusals-'));
    });

    afterAll(async () => {
      await emulator?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('answers a refused request with the error code, status and message boto3 reads from EMR', async () => {
      const requests = [
        { id: 'setpoint-launch', operation: 'RunJobFlow', input: launch },
        {
          // a primary group of 2: moto refuses it too (high availability needs 3)
          id: 'primary-of-two',
          operation: 'RunJobFlow',
          input: withGroups((group) =>
            group.InstanceRole === 'MASTER' ? { ...group, InstanceCount: 2 } : group,
          ),
        },
        {
          id: 'volume-too-large',
          operation: 'RunJobFlow',
          input: withGroups((group) =>
            group.InstanceRole === 'CORE'
              ? {
                  ...group,
                  EbsConfiguration: {
                    EbsBlockDeviceConfigs: [{ VolumeSpecification: { VolumeType: 'gp3', SizeInGB: 4096 } }],
                  },
                }
              : group,
          ),
        },
      ];
      const file = path.join(dir, 'requests.json');
      writeFileSync(file, JSON.stringify({ endpoint: emulator.url, requests }));
      // asynchronously: the emulator answering boto3 runs in this process
      const run = await promisify(execFile)(
        pythonForMoto,
        [path.join(import.meta.dirname, 'emr_refusals.py'), file],
        { encoding: 'utf8', timeout: 120_000 },
      );
      const answers = JSON.parse(run.stdout) as Array<{ id: string; endpoint: Answer; moto: Answer }>;
      const byId = new Map(answers.map((answer) => [answer.id, answer]));
      // what Setpoint launches, both take
      expect(byId.get('setpoint-launch')).toEqual({ id: 'setpoint-launch', endpoint: null, moto: null });
      // the same refusal, in the same form: ValidationException, HTTP 400, a sentence botocore reads
      const primary = byId.get('primary-of-two');
      expect(primary?.moto).toMatchObject({ code: 'ValidationException', status: 400 });
      expect(primary?.endpoint).toEqual({
        code: 'ValidationException',
        status: 400,
        message: 'The MASTER instance group has 1 or 3 instances.',
      });
      expect(byId.get('volume-too-large')?.endpoint).toEqual({
        code: 'ValidationException',
        status: 400,
        message: 'The volume size 4096 GiB is outside 1 - 1024.',
      });
      // moto does not check volume sizes: the emulator is stricter there, as EMR is
      expect(byId.get('volume-too-large')?.moto).toBeNull();
    });
  },
);
