import { z } from 'zod';
import { type Forge, type ForgeConnection, forgeRequest, type ReviewRequest } from './forge.js';

/** The fields of GitLab's merge request Setpoint reads. */
const mergeRequestSchema = z.looseObject({
  iid: z.number().int(),
  web_url: z.string(),
  state: z.enum(['opened', 'closed', 'locked', 'merged']),
  merge_commit_sha: z.string().nullable().optional(),
  squash_commit_sha: z.string().nullable().optional(),
});

const toRequest = (request: z.infer<typeof mergeRequestSchema>): ReviewRequest => ({
  number: request.iid,
  url: request.web_url,
  state: request.state === 'merged' ? 'merged' : request.state === 'closed' ? 'closed' : 'open',
  mergeCommitSha:
    request.state === 'merged' ? (request.merge_commit_sha ?? request.squash_commit_sha ?? null) : null,
});

/** GitLab's REST API v4 (gitlab.com or self-managed): the project's merge requests. */
export function gitlabForge(connection: ForgeConnection): Forge {
  const project = `/projects/${encodeURIComponent(connection.repository)}`;
  const headers = { 'private-token': connection.token };
  const call = <T>(method: string, path: string, schema: z.ZodType<T>, body?: unknown) =>
    forgeRequest(connection, 'GitLab', { method, path: `${project}${path}`, headers, body }, schema);
  return {
    kind: 'gitlab',
    async findOpen(head, base) {
      const query = new URLSearchParams({ state: 'opened', source_branch: head, target_branch: base });
      const requests = await call('GET', `/merge_requests?${query}`, z.array(mergeRequestSchema));
      return requests[0] ? toRequest(requests[0]) : null;
    },
    async open(input) {
      const request = await call('POST', '/merge_requests', mergeRequestSchema, {
        source_branch: input.head,
        target_branch: input.base,
        title: input.title,
        description: input.body,
        remove_source_branch: true,
      });
      return toRequest(request);
    },
    async update(number, input) {
      return toRequest(
        await call('PUT', `/merge_requests/${number}`, mergeRequestSchema, {
          title: input.title,
          description: input.body,
        }),
      );
    },
    async get(number) {
      return toRequest(await call('GET', `/merge_requests/${number}`, mergeRequestSchema));
    },
  };
}
