import { AppError } from '@setpoint/foundation/errors';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { awsRequests } from './aws-requests.js';

const serverless = awsRequests({ name: 'EMR Serverless', iam: 'emr-serverless' });

function awsError(name: string, message: string, httpStatusCode: number) {
  return Object.assign(new Error(message), { name, $metadata: { httpStatusCode } });
}

describe('the requests of the EMR adapter', () => {
  it('maps a failure through the error map, naming the service, the operation and the IAM action', async () => {
    const failed = serverless.send('GetJobRun', () =>
      Promise.reject(awsError('AccessDeniedException', 'not authorized', 403)),
    );
    await expect(failed).rejects.toBeInstanceOf(AppError);
    await expect(failed).rejects.toMatchObject({
      code: 'EMR_ACCESS_DENIED',
      message: expect.stringContaining('grant emr-serverless:GetJobRun'),
    });
    await expect(
      serverless.send('GetApplication', () =>
        Promise.reject(awsError('ThrottlingException', 'slow down', 400)),
      ),
    ).rejects.toMatchObject({
      code: 'EMR_REQUEST_FAILED',
      message: expect.stringMatching(/^EMR Serverless GetApplication failed/),
    });
  });

  it('follows the token from page to page and stops at the page without one', async () => {
    const asked: Array<string | undefined> = [];
    const pages = { first: 'b', b: 'c', c: undefined } as Record<string, string | undefined>;
    const seen: string[] = [];
    for await (const page of serverless.pages(
      'ListJobRuns',
      async (token) => {
        asked.push(token);
        const name = token ?? 'first';
        return { name, next: pages[name] };
      },
      (output) => output.next,
    ))
      seen.push(page.name);
    expect(asked).toEqual([undefined, 'b', 'c']);
    expect(seen).toEqual(['first', 'b', 'c']);
  });

  it('stops a runaway token loop at its page cap', async () => {
    let calls = 0;
    for await (const _ of serverless.pages(
      'ListJobRuns',
      async () => {
        calls += 1;
        return { next: 'again' };
      },
      (output) => output.next,
    ));
    expect(calls).toBe(1_000);
  });

  it('refuses an answer of another shape, naming the service, the operation and where', () => {
    expect(() =>
      serverless.validated(z.object({ jobRunId: z.string() }), { jobRunId: 7 }, 'GetJobRun'),
    ).toThrow(/^EMR Serverless GetJobRun answered an unexpected shape at jobRunId/);
  });
});
