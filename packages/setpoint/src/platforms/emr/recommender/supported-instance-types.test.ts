import { UpstreamError, ValidationError } from '@setpoint/foundation/errors';
import { describe, expect, it } from 'vitest';
import { describeEmrError } from '../api/emr-api-error.js';
import { cachedSupportedInstanceTypes } from './supported-instance-types.js';

/** An account whose answers are given in order; each call records its release label. */
function account(answers: Array<string[] | Error>) {
  const asked: string[] = [];
  return {
    asked,
    clientOf: async () => ({
      supportedInstanceTypes: async (releaseLabel: string) => {
        const answer = answers[Math.min(asked.length, answers.length - 1)] as string[] | Error;
        asked.push(releaseLabel);
        if (answer instanceof Error) throw answer;
        return new Set(answer);
      },
    }),
  };
}

const awsError = (name: string, status: number) =>
  describeEmrError(
    Object.assign(new Error(`${name} from EMR`), { name, $metadata: { httpStatusCode: status } }),
    'ListSupportedInstanceTypes',
  );

describe('the instance types an EMR release supports in an account’s region', () => {
  it('reads each account and release once an hour', async () => {
    let now = 0;
    const listed = account([['m5.xlarge'], ['m5.xlarge', 'm7g.xlarge']]);
    const read = cachedSupportedInstanceTypes(listed.clientOf, () => now);
    expect([...((await read('acct', 'emr-6.5.0')) ?? [])]).toEqual(['m5.xlarge']);
    now = 59 * 60_000;
    await read('acct', 'emr-6.5.0');
    expect(listed.asked).toEqual(['emr-6.5.0']);
    expect((await read('acct', 'emr-7.2.0'))?.has('m7g.xlarge')).toBe(true);
    expect(listed.asked).toEqual(['emr-6.5.0', 'emr-7.2.0']);
    now = 61 * 60_000;
    expect((await read('acct', 'emr-6.5.0'))?.has('m7g.xlarge')).toBe(true);
    expect(listed.asked).toHaveLength(3);
  });

  it('says nothing (null) when refused, on an unknown release, an empty list or an account it cannot reach', async () => {
    const denied = awsError('AccessDeniedException', 400);
    expect(denied.code).toBe('EMR_ACCESS_DENIED');
    expect(await cachedSupportedInstanceTypes(account([denied]).clientOf)('acct', 'emr-7.2.0')).toBeNull();
    const badRelease = awsError('ValidationException', 400);
    expect(await cachedSupportedInstanceTypes(account([badRelease]).clientOf)('acct', 'emr-9')).toBeNull();
    expect(await cachedSupportedInstanceTypes(account([[]]).clientOf)('acct', 'emr-7.2.0')).toBeNull();
    // a double or proxy that does not implement the action answers a 5xx of its own: not worth retrying
    const unimplemented = awsError('NotImplementedError', 501);
    expect(unimplemented.code).toBe('EMR_REQUEST_FAILED');
    expect(
      await cachedSupportedInstanceTypes(account([unimplemented]).clientOf)('acct', 'emr-7.2.0'),
    ).toBeNull();
    const notEmr = async () => {
      throw new ValidationError('NOT_EMR', 'workspace acct is a databricks workspace, not an EMR account');
    };
    expect(await cachedSupportedInstanceTypes(notEmr)('acct', 'emr-7.2.0')).toBeNull();
  });

  it('throws throttling and server faults, so the recommendation is retried, and asks again next time', async () => {
    const throttled = awsError('ThrottlingException', 400);
    expect(throttled).toBeInstanceOf(UpstreamError);
    const listed = account([throttled, ['m5.xlarge']]);
    const read = cachedSupportedInstanceTypes(listed.clientOf);
    await expect(read('acct', 'emr-7.2.0')).rejects.toBe(throttled);
    expect((await read('acct', 'emr-7.2.0'))?.has('m5.xlarge')).toBe(true);
  });
});
