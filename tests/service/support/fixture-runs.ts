import { expect } from 'vitest';
import { fixtureFile, multipartBody } from './multipart.js';
import { eventually, fixturesDir, type Harness } from './service-harness.js';

/** Uploads `content` as a run's event log, with the fixture cluster report; answers the server's response. */
export function uploadEventLog(
  h: Harness,
  projectId: string,
  content: Buffer,
  externalRunId: string,
  filename = 'eventlog',
) {
  const body = multipartBody([
    { name: 'eventlog', filename, content },
    { name: 'cluster_report', content: fixtureFile(fixturesDir, 'cluster-report.json').toString('utf8') },
    { name: 'external_run_id', content: externalRunId },
  ]);
  return h.app.inject({
    method: 'POST',
    url: `/api/v1/projects/${projectId}/runs`,
    headers: { ...body.headers, authorization: `Bearer ${h.token}` },
    payload: body.payload,
  });
}

/**
 * Uploads the AWS fixture run (event log and cluster report) to a project and waits until the pipeline
 * has processed it: its recommendation reached SUCCESS. Answers the run's id.
 */
export async function processedFixtureRun(
  h: Harness,
  projectId: string,
  externalRunId: string,
): Promise<string> {
  const upload = multipartBody([
    { name: 'eventlog', filename: 'eventlog', content: fixtureFile(fixturesDir, 'databricks-aws-eventlog') },
    {
      name: 'cluster_report',
      filename: 'cluster_report.json',
      contentType: 'application/json',
      content: fixtureFile(fixturesDir, 'cluster-report.json'),
    },
    { name: 'external_run_id', content: externalRunId },
  ]);
  const response = await h.app.inject({
    method: 'POST',
    url: `/api/v1/projects/${projectId}/runs`,
    headers: { ...upload.headers, authorization: `Bearer ${h.token}` },
    payload: upload.payload,
  });
  expect(response.statusCode).toBe(202);
  const runId = response.json().id as string;
  await eventually(
    async () => {
      const recs = (await h.request('GET', `/api/v1/projects/${projectId}/recommendations`)).json();
      return recs.items.some(
        (rec: { based_on_run_id: string; state: string }) =>
          rec.based_on_run_id === runId && rec.state === 'SUCCESS',
      )
        ? true
        : undefined;
    },
    120_000,
    `the recommendation for ${externalRunId}`,
  );
  return runId;
}
