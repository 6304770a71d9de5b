import { execFileSync } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pythonForMoto } from '../moto-server.js';
import { readBody } from './request-body.js';

/** The merge request fields GitLab documents, as python-gitlab (PyPI) declares them for its client. */
export interface GitLabDocumentedFields {
  create: { required: string[]; optional: string[] };
  update: { required: string[]; optional: string[] };
  list: string[];
  path: string;
}

const readFields = `
import json
from gitlab.v4.objects.merge_requests import ProjectMergeRequestManager as M
print(json.dumps({
    "create": {"required": list(M._create_attrs.required), "optional": list(M._create_attrs.optional)},
    "update": {"required": list(M._update_attrs.required), "optional": list(M._update_attrs.optional)},
    "list": list(M._list_filters),
    "path": M._path,
}))
`;

export function gitlabDocumentedFields(): GitLabDocumentedFields {
  return JSON.parse(
    execFileSync(pythonForMoto, ['-c', readFields], { encoding: 'utf8' }),
  ) as GitLabDocumentedFields;
}

interface StoredRequest {
  iid: number;
  title: string;
  description: string;
  sourceBranch: string;
  targetBranch: string;
  state: 'opened' | 'closed' | 'merged';
  mergeCommitSha: string | null;
}

export interface GitLabStandIn {
  apiUrl: string;
  token: string;
  calls: { method: string; path: string; body: unknown; problems: string[] }[];
  requests: StoredRequest[];
  merge(iid: number, mergeCommitSha: string): void;
  close(): Promise<void>;
}

/**
 * A local stand-in for GitLab's merge request API v4 on 127.0.0.1: each request's path, query filters
 * and body fields are checked against the fields GitLab documents (as python-gitlab declares them);
 * answers carry the fields of GitLab's merge request resource.
 */
export async function startGitLabStandIn(options: {
  project: string;
  token?: string;
}): Promise<GitLabStandIn> {
  const fields = gitlabDocumentedFields();
  const token = options.token ?? 'glpat-standin00000000000';
  const requests: StoredRequest[] = [];
  const calls: GitLabStandIn['calls'] = [];
  let port = 0;
  const base = `/api/v4${fields.path.replace('{project_id}', encodeURIComponent(options.project))}`;

  const render = (entry: StoredRequest) => ({
    id: 1000 + entry.iid,
    iid: entry.iid,
    project_id: 7,
    title: entry.title,
    description: entry.description,
    state: entry.state,
    source_branch: entry.sourceBranch,
    target_branch: entry.targetBranch,
    web_url: `https://gitlab.example.com/${options.project}/-/merge_requests/${entry.iid}`,
    merge_commit_sha: entry.mergeCommitSha,
    squash_commit_sha: null,
    sha: 'a'.repeat(40),
    draft: false,
    merge_status: 'can_be_merged',
  });

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const body = (await readBody(request)) as Record<string, unknown> | undefined;
    const method = request.method ?? 'GET';
    const problems: string[] = [];
    if (request.headers['private-token'] !== token) problems.push('missing or wrong PRIVATE-TOKEN');
    // the project id must arrive URL-encoded ("group%2Fname"), as GitLab documents for paths
    const raw = (request.url ?? '').split('?')[0] ?? '';
    const rest = raw.startsWith(base) ? raw.slice(base.length) : null;
    if (rest === null) problems.push(`path ${raw} is not under ${base}`);
    const iid = rest ? /^\/(\d+)$/.exec(rest)?.[1] : undefined;
    const kind =
      rest === '' && method === 'GET'
        ? 'list'
        : rest === '' && method === 'POST'
          ? 'create'
          : iid && method === 'PUT'
            ? 'update'
            : iid && method === 'GET'
              ? 'get'
              : undefined;
    if (!kind) problems.push(`GitLab documents no ${method} ${raw} for merge requests`);
    if (kind === 'list')
      for (const name of url.searchParams.keys())
        if (!fields.list.includes(name)) problems.push(`list filter ${name} is not documented`);
    if (kind === 'create' || kind === 'update') {
      const declared = fields[kind];
      for (const name of Object.keys(body ?? {}))
        if (![...declared.required, ...declared.optional].includes(name))
          problems.push(`${kind} field ${name} is not documented`);
      for (const name of declared.required)
        if (body?.[name] === undefined) problems.push(`${kind} field ${name} is required`);
    }
    calls.push({ method, path: `${url.pathname}${url.search}`, body, problems });
    const send = (status: number, payload: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(payload));
    };
    if (problems.length > 0) return send(400, { message: problems.join('; ') });
    if (kind === 'list') {
      const state = url.searchParams.get('state');
      return send(
        200,
        requests
          .filter(
            (entry) =>
              (!state || state === 'all' || entry.state === state) &&
              (!url.searchParams.get('source_branch') ||
                entry.sourceBranch === url.searchParams.get('source_branch')) &&
              (!url.searchParams.get('target_branch') ||
                entry.targetBranch === url.searchParams.get('target_branch')),
          )
          .map(render),
      );
    }
    if (kind === 'create') {
      const entry: StoredRequest = {
        iid: requests.length + 1,
        title: String(body?.title),
        description: String(body?.description ?? ''),
        sourceBranch: String(body?.source_branch),
        targetBranch: String(body?.target_branch),
        state: 'opened',
        mergeCommitSha: null,
      };
      requests.push(entry);
      return send(201, render(entry));
    }
    const entry = requests.find((candidate) => candidate.iid === Number(iid));
    if (!entry) return send(404, { message: '404 Not found' });
    if (kind === 'update') {
      if (typeof body?.title === 'string') entry.title = body.title;
      if (typeof body?.description === 'string') entry.description = body.description;
    }
    return send(200, render(entry));
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
    apiUrl: `http://127.0.0.1:${port}/api/v4`,
    token,
    calls,
    requests,
    merge(iid, mergeCommitSha) {
      const entry = requests.find((candidate) => candidate.iid === iid);
      if (!entry) throw new Error(`no merge request ${iid}`);
      Object.assign(entry, { state: 'merged', mergeCommitSha });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
