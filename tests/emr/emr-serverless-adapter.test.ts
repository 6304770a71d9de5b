import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import {
  CreateApplicationCommand,
  EMRServerlessClient,
  StartApplicationCommand,
  StartJobRunCommand,
} from '@aws-sdk/client-emr-serverless';
import { EmrServerlessClient } from 'setpoint/platforms/emr/api/emr-serverless-client';
import { jobRunCost } from 'setpoint/platforms/emr/serverless/emr-serverless-cost';
import { emrServerlessPrice } from 'setpoint/platforms/emr/serverless/emr-serverless-prices';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MotoServer, pythonForMoto, startMotoServer } from '../support/moto-server.js';
import { describeFull } from '../support/tiers.js';

const keys = { accessKeyId: 'AKIAMOTO00000000', secretAccessKey: 'moto-secret' };
const fixture = path.resolve(import.meta.dirname, '../fixtures/emr-serverless/get-job-run.json');
const region = 'us-east-1';

// moto (PyPI `moto[server]`) implements CreateApplication, StartApplication, GetApplication, StartJobRun,
// ListJobRuns and GetJobRun; its job runs succeed at once and bill nothing, so the costing is proven on a
// GetJobRun body checked against botocore's model (below).
describeFull(
  'the EMR Serverless adapter against moto in server mode',
  'moto[server] from PyPI (SETPOINT_PYTHON)',
  () => {
    let moto: MotoServer;
    let launcher: EMRServerlessClient;
    let client: EmrServerlessClient;
    let applicationId = '';
    const runIds: string[] = [];

    beforeAll(async () => {
      moto = await startMotoServer();
      launcher = new EMRServerlessClient({ endpoint: moto.endpoint, region, credentials: keys });
      client = new EmrServerlessClient({
        region,
        credentials: { kind: 'access-keys', ...keys },
        endpoint: moto.endpoint,
      });
      applicationId = (
        await launcher.send(
          new CreateApplicationCommand({
            name: 'orders',
            releaseLabel: 'emr-7.2.0',
            type: 'SPARK',
            clientToken: 'orders-app',
          }),
        )
      ).applicationId as string;
      await launcher.send(new StartApplicationCommand({ applicationId }));
      for (const day of ['02', '03'])
        runIds.push(
          (
            await launcher.send(
              new StartJobRunCommand({
                applicationId,
                name: `orders-2026-03-${day}`,
                clientToken: `orders-${day}`,
                executionRoleArn: 'arn:aws:iam::123456789012:role/emr-serverless-job',
                jobDriver: { sparkSubmit: { entryPoint: 's3://jobs/orders.py' } },
              }),
            )
          ).jobRunId as string,
        );
    }, 60_000);

    afterAll(async () => {
      client?.close();
      launcher?.destroy();
      await moto?.close();
    });

    it('reads the application and lists its job runs, each validated, as moto answers them', async () => {
      const application = await client.getApplication(applicationId);
      expect(application).toMatchObject({ applicationId, releaseLabel: 'emr-7.2.0', architecture: 'X86_64' });
      // the engine type as sent (moto answers "Spark" for SPARK)
      expect(application.type.toUpperCase()).toBe('SPARK');
      const listed = [];
      for await (const run of client.listJobRuns(applicationId)) listed.push(run);
      expect(listed.map((run) => run.id).sort()).toEqual([...runIds].sort());
      expect(
        listed.every((run) => run.applicationId === applicationId && typeof run.createdAt === 'number'),
      ).toBe(true);
    });

    it('gets a job run, and a run that billed nothing is not costed (never $0)', async () => {
      const run = await client.getJobRun(applicationId, runIds[0] as string);
      expect(run).toMatchObject({ applicationId, jobRunId: runIds[0], releaseLabel: 'emr-7.2.0' });
      const costed = jobRunCost(run, emrServerlessPrice(region), region);
      expect(costed.cost).toBeNull();
      expect(costed.pending).toMatch(
        /carries no billedResourceUtilization yet|is (SUBMITTED|PENDING|SCHEDULED|RUNNING)/,
      );
    });

    it("says an unknown job run is not found, in EMR Serverless' words", async () => {
      await expect(client.getJobRun(applicationId, '00nosuchrun000')).rejects.toMatchObject({
        code: 'EMR_RESOURCE_NOT_FOUND',
        message: expect.stringMatching(/^EMR Serverless GetJobRun: /),
      });
    });
  },
);

describe("a job run's billed utilization, through the AWS SDK", () => {
  let server: Server;
  let client: EmrServerlessClient;
  const requests: string[] = [];

  beforeAll(async () => {
    const body = readFileSync(fixture);
    server = createServer((request, response) => {
      requests.push(`${request.method} ${request.url}`);
      response.writeHead(200, { 'content-type': 'application/json' }).end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    client = new EmrServerlessClient({
      region,
      credentials: { kind: 'access-keys', ...keys },
      endpoint: `http://127.0.0.1:${port}`,
    });
  });
  afterAll(async () => {
    client?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('costs a finished run from billedResourceUtilization at the published prices, as typed components', async () => {
    const run = await client.getJobRun('00fkvq1t2b3c4d5e', '00fkvq9z8y7x6w5v');
    expect(requests).toEqual(['GET /applications/00fkvq1t2b3c4d5e/jobruns/00fkvq9z8y7x6w5v']);
    expect(run.billedResourceUtilization).toEqual({
      vCPUHour: 24.112,
      memoryGBHour: 96.448,
      storageGBHour: 12.5,
    });
    expect(run.startedAt).toBe(1796547652000);
    const { cost } = jobRunCost(run, emrServerlessPrice(region), region);
    expect(cost?.totalUsd).toBeCloseTo(24.112 * 0.052624 + 96.448 * 0.0057785 + 12.5 * 0.000111, 6);
    expect(
      cost?.components.map((component) => [component.kind, component.billed_by, component.unit]),
    ).toEqual([
      ['compute', 'cloud', 'vCPU-hour'],
      ['compute', 'cloud', 'GB-hour'],
      ['storage', 'cloud', 'GB-hour'],
    ]);
    // a region without published prices gives no cost rather than a guess
    expect(jobRunCost(run, emrServerlessPrice('ap-south-2'), 'ap-south-2').pending).toMatch(
      /no published EMR Serverless price for ap-south-2/,
    );
  });
});

describeFull(
  "the GetJobRun fixture against botocore's service model",
  'botocore from PyPI (SETPOINT_PYTHON)',
  () => {
    it('is a valid GetJobRun response, and the check fails on a member the model does not have', () => {
      const validate = (extra: string) =>
        spawnSync(
          pythonForMoto,
          [
            '-c',
            `import json, sys, botocore.session
from botocore.validate import ParamValidator
body = json.load(open(sys.argv[1]))
${extra}
shape = botocore.session.get_session().get_service_model('emr-serverless').operation_model('GetJobRun').output_shape
report = ParamValidator().validate(body, shape)
print(report.generate_report() if report.has_errors() else 'valid')`,
            fixture,
          ],
          { encoding: 'utf8' },
        );
      const valid = validate('');
      expect(valid.stderr).toBe('');
      expect(valid.stdout.trim()).toBe('valid');
      expect(validate("body['jobRun']['billedResourceUtilization']['gpuHour'] = 1").stdout).toMatch(
        /Unknown parameter.*gpuHour/,
      );
    });
  },
);
