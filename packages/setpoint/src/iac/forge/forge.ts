import { UpstreamError, upstreamAnswer } from '@setpoint/foundation/errors';
import type { ZodType } from 'zod';

/** Where a repository is hosted, as far as proposals go: a pull request, a merge request, or a pushed branch only. */
export type ForgeKind = 'github' | 'gitlab' | 'none';

export type ProposalState = 'open' | 'merged' | 'closed';

/** A pull request (GitHub) or merge request (GitLab) as Setpoint tracks it. */
export interface ReviewRequest {
  /** GitHub's pull request number, GitLab's merge request iid. */
  number: number;
  url: string;
  state: ProposalState;
  /** The commit the merge produced on the base branch, when merged (null for a fast-forward GitLab does not name). */
  mergeCommitSha: string | null;
}

export interface ReviewRequestInput {
  title: string;
  body: string;
  /** The branch with Setpoint's commit. */
  head: string;
  /** The branch it merges into. */
  base: string;
}

/** The narrow face of a forge's API that proposals need. */
export interface Forge {
  readonly kind: Exclude<ForgeKind, 'none'>;
  /** The open request from `head`, if one exists (Setpoint updates it instead of opening another). */
  findOpen(head: string, base: string): Promise<ReviewRequest | null>;
  open(input: ReviewRequestInput): Promise<ReviewRequest>;
  update(number: number, input: Pick<ReviewRequestInput, 'title' | 'body'>): Promise<ReviewRequest>;
  get(number: number): Promise<ReviewRequest>;
}

export type ForgeFetch = (url: string, init?: RequestInit) => Promise<Response>;

export interface ForgeConnection {
  /** The API root: `https://api.github.com`, `https://ghe.example.com/api/v3`, `https://gitlab.example.com/api/v4`. */
  apiUrl: string;
  /** `owner/name` on GitHub, the project path (`group/sub/name`) on GitLab. */
  repository: string;
  token: string;
  fetch: ForgeFetch;
  timeoutMs?: number;
}

/** Host and path of a remote (`https://host/a/b.git`, `git@host:a/b.git`, `ssh://git@host/a/b`); null for local paths. */
export function remoteLocation(remote: string): { host: string; path: string } | null {
  const scp = /^[^@/\s]+@([^:/\s]+):(.+)$/.exec(remote);
  const match = scp ?? /^[a-z+]+:\/\/(?:[^@/]+@)?([^/:]+)(?::\d+)?\/(.+)$/i.exec(remote);
  if (!match || remote.startsWith('file:')) return null;
  return {
    host: (match[1] as string).toLowerCase(),
    path: (match[2] as string).replace(/\.git\/?$/, '').replace(/\/$/, ''),
  };
}

/** The forge a remote is on when its host says so (github.com, gitlab.com or a host named gitlab…). */
export function guessForge(remote: string): { kind: ForgeKind; apiUrl: string | null } {
  const location = remoteLocation(remote);
  if (!location) return { kind: 'none', apiUrl: null };
  if (location.host === 'github.com') return { kind: 'github', apiUrl: 'https://api.github.com' };
  if (location.host === 'gitlab.com' || location.host.startsWith('gitlab.'))
    return { kind: 'gitlab', apiUrl: `https://${location.host}/api/v4` };
  return { kind: 'none', apiUrl: null };
}

/**
 * One API call with a timeout, its JSON answer checked against the shape Setpoint reads; errors name
 * the forge, the status and its message, never the token.
 */
export async function forgeRequest<T>(
  connection: ForgeConnection,
  forge: string,
  request: { method: string; path: string; headers: Record<string, string>; body?: unknown },
  schema: ZodType<T>,
): Promise<T> {
  const url = `${connection.apiUrl.replace(/\/$/, '')}${request.path}`;
  let response: Response;
  try {
    response = await connection.fetch(url, {
      method: request.method,
      headers: {
        accept: 'application/json',
        'user-agent': 'setpoint',
        ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...request.headers,
      },
      ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
      signal: AbortSignal.timeout(connection.timeoutMs ?? 15_000),
    });
  } catch (error) {
    throw new UpstreamError(
      'FORGE_UNREACHABLE',
      `${forge} at ${connection.apiUrl} did not answer ${request.method} ${request.path}: ${(error as Error).message}`,
    );
  }
  const text = await response.text();
  if (!response.ok) {
    let message = text.slice(0, 300);
    try {
      const parsed = JSON.parse(text) as { message?: unknown; error?: unknown };
      message = JSON.stringify(parsed.message ?? parsed.error ?? parsed);
    } catch {
      // not JSON: the text itself
    }
    const hint =
      response.status === 401 || response.status === 403
        ? ' (check the token and its scopes)'
        : response.status === 404
          ? ` (no repository ${connection.repository}, or the token cannot see it)`
          : '';
    throw new UpstreamError(
      'FORGE_REFUSED',
      `${forge} answered ${response.status} to ${request.method} ${request.path}${hint}: ${message.replaceAll(connection.token, '***')}`,
    );
  }
  return upstreamAnswer(schema, text === '' ? null : JSON.parse(text), {
    code: 'FORGE_ANSWER_INVALID',
    call: `${forge} ${request.method} ${request.path}`,
  });
}
