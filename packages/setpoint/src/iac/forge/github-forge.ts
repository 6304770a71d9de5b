import { z } from 'zod';
import { type Forge, type ForgeConnection, forgeRequest, type ReviewRequest } from './forge.js';

/** The fields of GitHub's `pull-request` / `pull-request-simple` schemas Setpoint reads. */
const pullRequestSchema = z.looseObject({
  number: z.number().int(),
  html_url: z.string(),
  state: z.enum(['open', 'closed']),
  merged_at: z.string().nullable().optional(),
  merge_commit_sha: z.string().nullable().optional(),
});

const toRequest = (pull: z.infer<typeof pullRequestSchema>): ReviewRequest => ({
  number: pull.number,
  url: pull.html_url,
  state: pull.merged_at ? 'merged' : pull.state,
  mergeCommitSha: pull.merged_at ? (pull.merge_commit_sha ?? null) : null,
});

/** GitHub's REST API (github.com or Enterprise `…/api/v3`): the pulls endpoints, version 2022-11-28. */
export function githubForge(connection: ForgeConnection): Forge {
  const [owner, name] = connection.repository.split('/') as [string, string];
  const repo = `/repos/${encodeURIComponent(owner)}/${encodeURIComponent(name)}`;
  const headers = {
    accept: 'application/vnd.github+json',
    authorization: `Bearer ${connection.token}`,
    'x-github-api-version': '2022-11-28',
  };
  const call = <T>(method: string, path: string, schema: z.ZodType<T>, body?: unknown) =>
    forgeRequest(connection, 'GitHub', { method, path: `${repo}${path}`, headers, body }, schema);
  return {
    kind: 'github',
    async findOpen(head, base) {
      const query = new URLSearchParams({ state: 'open', head: `${owner}:${head}`, base, per_page: '10' });
      const pulls = await call('GET', `/pulls?${query}`, z.array(pullRequestSchema));
      return pulls[0] ? toRequest(pulls[0]) : null;
    },
    async open(input) {
      const pull = await call('POST', '/pulls', pullRequestSchema, {
        title: input.title,
        body: input.body,
        head: input.head,
        base: input.base,
        maintainer_can_modify: true,
      });
      return toRequest(pull);
    },
    async update(number, input) {
      return toRequest(await call('PATCH', `/pulls/${number}`, pullRequestSchema, input));
    },
    async get(number) {
      return toRequest(await call('GET', `/pulls/${number}`, pullRequestSchema));
    },
  };
}
