import { workspaceFacts } from '@setpoint/databricks-emulator/server/cluster-validity';
import { checkClusterSpec } from '@setpoint/validity/databricks';
import { checkEmrRequest } from '@setpoint/validity/emr';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestEmulator, testEmulator } from '../emulator/support.js';
import { databricksCluster } from './databricks-arbitraries.js';
import { runJobFlowInput } from './emr-arbitraries.js';

/**
 * Property: for random requests, the validity contract and the emulator (the contract behind its own
 * request parsing, job checks and EMR engine) agree on what is refused. A disagreement is a request one of
 * them takes and the other refuses: either the emulator's parsing is stricter or looser than the platform's
 * rules, or a rule is missing from the contract.
 */
describe('the validity contract and the emulator agree', () => {
  let api: TestEmulator;

  beforeAll(async () => {
    api = await testEmulator({ preloadJobs: false });
  });

  afterAll(async () => {
    await api?.emulator.close();
  });

  it('on random Databricks clusters: jobs/create answers 400 exactly when a request rule is broken', async () => {
    const facts = workspaceFacts(api.emulator.context);
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(databricksCluster, async (cluster) => {
        const violations = checkClusterSpec(cluster, facts).filter(
          (violation) => violation.refusedAt === 'request',
        );
        const response = await api.call('POST', '/api/2.2/jobs/create', {
          name: 'property',
          tasks: [
            { task_key: 'main', spark_python_task: { python_file: 'dbfs:/x.py' }, new_cluster: cluster },
          ],
        });
        if (violations.length > 0) refused += 1;
        expect(response.status, `${JSON.stringify(cluster)} → ${response.text}`).toBe(
          violations.length > 0 ? 400 : 200,
        );
        if (violations.length > 0) {
          expect(response.json.error_code).toBe('INVALID_PARAMETER_VALUE');
          expect(violations.map((violation) => violation.message)).toContain(response.json.message);
        }
      }),
      { numRuns: 400, seed: 34 },
    );
    // both verdicts came up often enough to mean something
    expect(refused).toBeGreaterThan(40);
    expect(refused).toBeLessThan(360);
  });

  it('on random RunJobFlow requests: the EMR face answers ValidationException exactly when a rule is broken', async () => {
    const engine = api.emulator.emr;
    const facts = {
      supportedInstanceTypes: new Set(engine.supportedInstanceTypes().map((type) => type.nodeTypeId)),
      region: 'us-east-1',
      releaseLabel: 'emr-7.2.0',
    };
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(runJobFlowInput, async (input) => {
        const violations = checkEmrRequest({ operation: 'RunJobFlow', input }, facts);
        const response = await api.emulator.app.inject({
          method: 'POST',
          url: '/',
          headers: {
            'content-type': 'application/x-amz-json-1.1',
            'x-amz-target': 'ElasticMapReduce.RunJobFlow',
            'x-amz-date': '20260302T060000Z',
            authorization: `AWS4-HMAC-SHA256 Credential=AKIAEMULATOR/20260302/us-east-1/elasticmapreduce/aws4_request, SignedHeaders=host;x-amz-date, Signature=${'0'.repeat(64)}`,
          },
          payload: JSON.stringify(input),
        });
        if (violations.length > 0) refused += 1;
        expect(response.statusCode, `${JSON.stringify(input)} → ${response.body}`).toBe(
          violations.length > 0 ? 400 : 200,
        );
        if (violations.length > 0) {
          const body = JSON.parse(response.body) as { __type: string; Message: string };
          expect(body.__type).toBe('ValidationException');
          expect(body.Message).toBe(violations[0]?.message);
        }
      }),
      { numRuns: 300, seed: 34 },
    );
    expect(refused).toBeGreaterThan(30);
    expect(refused).toBeLessThan(270);
  });
});
