import { ValidationError } from '@setpoint/foundation/errors';
import { describe, expect, it } from 'vitest';
import { DatabricksApiError } from '../api/api-error.js';
import { type NodeType, nodeTypeSchema } from '../api/schema.js';
import { cachedLaunchableNodeTypes } from './launchable-node-types.js';

const nodeType = (id: string, extra: Record<string, unknown> = {}): NodeType =>
  nodeTypeSchema.parse({ node_type_id: id, memory_mb: 16_384, num_cores: 4, ...extra });

function workspace(answers: Array<NodeType[] | Error>) {
  let calls = 0;
  return {
    get calls() {
      return calls;
    },
    clientOf: async () => ({
      listNodeTypes: async () => {
        const answer = answers[Math.min(calls, answers.length - 1)] as NodeType[] | Error;
        calls += 1;
        if (answer instanceof Error) throw answer;
        return answer;
      },
    }),
  };
}

const apiError = (httpStatus: number) =>
  new DatabricksApiError({
    errorCode: httpStatus === 403 ? 'PERMISSION_DENIED' : 'INTERNAL_ERROR',
    httpStatus,
    message: `HTTP ${httpStatus}`,
    path: '/api/2.1/clusters/list-node-types',
  });

describe('the node types a workspace can launch', () => {
  it('keeps listed types, not deprecated, hidden or unavailable ones', async () => {
    const listed = workspace([
      [
        nodeType('m5.xlarge'),
        nodeType('m4.xlarge', { is_deprecated: true }),
        nodeType('p2.xlarge', { is_hidden: true }),
        nodeType('c6gd.2xlarge', { node_info: { status: ['NotAvailableInRegion'] } }),
        nodeType('r5.xlarge', { node_info: { status: [] } }),
      ],
    ]);
    const read = cachedLaunchableNodeTypes(listed.clientOf);
    expect([...((await read('ws'))?.keys() ?? [])].sort()).toEqual(['m5.xlarge', 'r5.xlarge']);
  });

  it('reads a workspace once an hour, and each workspace on its own', async () => {
    let now = 0;
    const listed = workspace([[nodeType('m5.xlarge')], [nodeType('m5.xlarge'), nodeType('c5.xlarge')]]);
    const read = cachedLaunchableNodeTypes(listed.clientOf, () => now);
    expect((await read('ws'))?.size).toBe(1);
    now = 59 * 60_000;
    expect((await read('ws'))?.size).toBe(1);
    expect(listed.calls).toBe(1);
    await read('other');
    expect(listed.calls).toBe(2);
    now = 61 * 60_000;
    expect((await read('ws'))?.has('c5.xlarge')).toBe(true);
    expect(listed.calls).toBe(3);
  });

  it('says nothing (null) when the workspace cannot be asked, refuses, lacks the endpoint or lists nothing', async () => {
    const noHost = async () => {
      throw new ValidationError('WORKSPACE_NO_HOST', 'workspace ws has no Databricks host');
    };
    expect(await cachedLaunchableNodeTypes(noHost)('ws')).toBeNull();
    expect(await cachedLaunchableNodeTypes(workspace([apiError(403)]).clientOf)('ws')).toBeNull();
    expect(await cachedLaunchableNodeTypes(workspace([apiError(404)]).clientOf)('ws')).toBeNull();
    expect(await cachedLaunchableNodeTypes(workspace([[]]).clientOf)('ws')).toBeNull();
  });

  it('asks again five minutes after it could not say', async () => {
    let now = 0;
    const later = workspace([apiError(403), [nodeType('m5.xlarge')]]);
    const read = cachedLaunchableNodeTypes(later.clientOf, () => now);
    expect(await read('ws')).toBeNull();
    now = 4 * 60_000;
    expect(await read('ws')).toBeNull();
    expect(later.calls).toBe(1);
    now = 6 * 60_000;
    expect([...((await read('ws'))?.keys() ?? [])]).toEqual(['m5.xlarge']);
  });

  it('throws a transient failure, so the recommendation is retried, and caches nothing from it', async () => {
    const flaky = workspace([apiError(503), [nodeType('m5.xlarge')]]);
    const read = cachedLaunchableNodeTypes(flaky.clientOf);
    await expect(read('ws')).rejects.toThrow(/HTTP 503/);
    expect([...((await read('ws'))?.keys() ?? [])]).toEqual(['m5.xlarge']);
  });
});
