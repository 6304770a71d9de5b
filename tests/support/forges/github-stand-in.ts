import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkRequest, checkResponse, example, githubDescription } from './openapi-check.js';
import { readBody } from './request-body.js';

interface StoredPull {
  number: number;
  title: string;
  body: string;
  head: string;
  base: string;
  state: 'open' | 'closed';
  mergedAt: string | null;
  mergeCommitSha: string | null;
}

export interface GitHubStandIn {
  apiUrl: string;
  token: string;
  /** Every request, and what the published description found wrong with it (nothing, when conforming). */
  calls: { method: string; path: string; body: unknown; problems: string[] }[];
  pulls: StoredPull[];
  /** A reviewer merges the pull request: `merge` is the merge commit on the base branch. */
  merge(number: number, mergeCommitSha: string): void;
  close(): Promise<void>;
}

/**
 * A local stand-in for GitHub's pulls API on 127.0.0.1: it checks every request against GitHub's
 * published REST description (`@octokit/openapi`), answers from the description's own examples (so the
 * client reads the real shapes, also checked against the response schemas), and keeps pull requests in
 * memory so a test can merge one.
 */
export async function startGitHubStandIn(options: {
  owner: string;
  repo: string;
  token?: string;
}): Promise<GitHubStandIn> {
  const doc = githubDescription();
  const token = options.token ?? 'ghp_standin0000000000000000000000000000';
  const pulls: StoredPull[] = [];
  const calls: GitHubStandIn['calls'] = [];
  let port = 0;

  const render = (pull: StoredPull, simple: boolean) => {
    const body = example(doc, simple ? 'pull-request-simple' : 'pull-request');
    const html = `https://github.com/${options.owner}/${options.repo}/pull/${pull.number}`;
    Object.assign(body, {
      url: `http://127.0.0.1:${port}/repos/${options.owner}/${options.repo}/pulls/${pull.number}`,
      html_url: html,
      number: pull.number,
      state: pull.state,
      title: pull.title,
      body: pull.body,
      merged_at: pull.mergedAt,
      merge_commit_sha: pull.mergeCommitSha,
      // a new pull request asks no one yet (the published example's team lacks its required `type`)
      requested_reviewers: [],
      requested_teams: [],
      head: { ...(body.head as object), ref: pull.head },
      base: { ...(body.base as object), ref: pull.base },
    });
    if (!simple) Object.assign(body, { merged: pull.mergedAt !== null });
    return body;
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const body = await readBody(request);
    const method = request.method ?? 'GET';
    const { problems, matched } = checkRequest(doc, {
      method,
      path: url.pathname,
      query: url.searchParams,
      body,
    });
    if (request.headers.authorization !== `Bearer ${token}`)
      problems.push('missing or wrong Authorization: Bearer');
    if (request.headers['x-github-api-version'] !== '2022-11-28')
      problems.push('missing X-GitHub-Api-Version');
    if (request.headers.accept !== 'application/vnd.github+json')
      problems.push('Accept is not application/vnd.github+json');
    calls.push({ method, path: `${url.pathname}${url.search}`, body, problems });
    const send = (status: number, payload: unknown) => {
      if (matched && status < 300) {
        const invalid = checkResponse(doc, matched, status, payload);
        if (invalid.length > 0)
          calls.at(-1)?.problems.push(...invalid.map((problem) => `stand-in ${problem}`));
      }
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(payload));
    };
    if (problems.length > 0 || !matched) return send(422, { message: problems.join('; ') });
    const { owner, repo, pull_number: pullNumber } = matched.pathParameters;
    if (owner !== options.owner || repo !== options.repo) return send(404, { message: 'Not Found' });
    const input = (body ?? {}) as Partial<StoredPull> & { head?: string; base?: string };
    switch (`${method} ${matched.template}`) {
      case 'GET /repos/{owner}/{repo}/pulls': {
        const state = url.searchParams.get('state') ?? 'open';
        const head = url.searchParams.get('head');
        const base = url.searchParams.get('base');
        const found = pulls.filter(
          (pull) =>
            (state === 'all' || pull.state === state) &&
            (!head || `${options.owner}:${pull.head}` === head) &&
            (!base || pull.base === base),
        );
        return send(
          200,
          found.map((pull) => render(pull, true)),
        );
      }
      case 'POST /repos/{owner}/{repo}/pulls': {
        if (
          pulls.some((pull) => pull.state === 'open' && pull.head === input.head && pull.base === input.base)
        )
          return send(422, {
            message: 'Validation Failed',
            errors: [{ message: 'A pull request already exists' }],
          });
        const pull: StoredPull = {
          number: pulls.length + 1,
          title: String(input.title),
          body: String(input.body ?? ''),
          head: String(input.head),
          base: String(input.base),
          state: 'open',
          mergedAt: null,
          mergeCommitSha: null,
        };
        pulls.push(pull);
        return send(201, render(pull, false));
      }
      case 'GET /repos/{owner}/{repo}/pulls/{pull_number}':
      case 'PATCH /repos/{owner}/{repo}/pulls/{pull_number}': {
        const pull = pulls.find((entry) => entry.number === Number(pullNumber));
        if (!pull) return send(404, { message: 'Not Found' });
        if (method === 'PATCH') {
          if (input.title !== undefined) pull.title = input.title;
          if (input.body !== undefined) pull.body = input.body;
          if (input.state === 'open' || input.state === 'closed') pull.state = input.state;
        }
        return send(200, render(pull, false));
      }
      default:
        calls.at(-1)?.problems.push(`the stand-in does not serve ${method} ${matched.template}`);
        return send(501, { message: 'not served by the stand-in' });
    }
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      response.writeHead(500);
      response.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  return {
    apiUrl: `http://127.0.0.1:${port}`,
    token,
    calls,
    pulls,
    merge(number, mergeCommitSha) {
      const pull = pulls.find((entry) => entry.number === number);
      if (!pull) throw new Error(`no pull request ${number}`);
      Object.assign(pull, { state: 'closed', mergedAt: new Date().toISOString(), mergeCommitSha });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
