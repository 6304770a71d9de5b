import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type GitHubStandIn,
  startGitHubStandIn,
} from '../../../../../tests/support/forges/github-stand-in.js';
import {
  type GitLabStandIn,
  startGitLabStandIn,
} from '../../../../../tests/support/forges/gitlab-stand-in.js';
import { describeFull } from '../../../../../tests/support/tiers.js';
import { guessForge, remoteLocation } from './forge.js';
import { githubForge } from './github-forge.js';
import { gitlabForge } from './gitlab-forge.js';

const input = {
  title: 'Setpoint: orders nightly on 5 × r5d.xlarge',
  body: 'The recommendation, its evidence and what it saves.',
  head: 'setpoint/prj_1',
  base: 'main',
};

describe('remote locations', () => {
  it('reads host and repository from https, scp-style and ssh remotes, and knows github.com and gitlab hosts', () => {
    expect(remoteLocation('https://github.com/acme/infra.git')).toEqual({
      host: 'github.com',
      path: 'acme/infra',
    });
    expect(remoteLocation('git@gitlab.example.com:data/platform/infra.git')).toEqual({
      host: 'gitlab.example.com',
      path: 'data/platform/infra',
    });
    expect(remoteLocation('ssh://git@github.com:22/acme/infra')).toEqual({
      host: 'github.com',
      path: 'acme/infra',
    });
    expect(remoteLocation('/srv/git/infra.git')).toBeNull();
    expect(guessForge('git@github.com:acme/infra.git')).toEqual({
      kind: 'github',
      apiUrl: 'https://api.github.com',
    });
    expect(guessForge('https://gitlab.example.com/data/infra.git')).toEqual({
      kind: 'gitlab',
      apiUrl: 'https://gitlab.example.com/api/v4',
    });
    expect(guessForge('https://git.example.com/infra.git').kind).toBe('none');
  });
});

describe('githubForge against a stand-in checked by GitHub’s published REST description', () => {
  let standIn: GitHubStandIn;
  beforeAll(async () => {
    standIn = await startGitHubStandIn({ owner: 'acme', repo: 'infra' });
  });
  afterAll(() => standIn.close());

  it('opens, finds, updates and reads a pull request with calls the description accepts', async () => {
    const forge = githubForge({
      apiUrl: standIn.apiUrl,
      repository: 'acme/infra',
      token: standIn.token,
      fetch,
    });
    expect(await forge.findOpen(input.head, input.base)).toBeNull();
    const opened = await forge.open(input);
    expect(opened).toEqual({
      number: 1,
      url: 'https://github.com/acme/infra/pull/1',
      state: 'open',
      mergeCommitSha: null,
    });
    expect(await forge.findOpen(input.head, input.base)).toEqual(opened);
    const updated = await forge.update(1, { title: 'Setpoint: 4 × r5d.xlarge', body: 'newer' });
    expect(standIn.pulls[0]).toMatchObject({ title: 'Setpoint: 4 × r5d.xlarge', body: 'newer' });
    expect(updated.state).toBe('open');

    standIn.merge(1, 'c0ffee'.padEnd(40, '0'));
    expect(await forge.get(1)).toEqual({
      ...opened,
      state: 'merged',
      mergeCommitSha: 'c0ffee'.padEnd(40, '0'),
    });
    expect(standIn.calls.map((call) => `${call.method} ${call.path.split('?')[0]}`)).toEqual([
      'GET /repos/acme/infra/pulls',
      'POST /repos/acme/infra/pulls',
      'GET /repos/acme/infra/pulls',
      'PATCH /repos/acme/infra/pulls/1',
      'GET /repos/acme/infra/pulls/1',
    ]);
    expect(standIn.calls.flatMap((call) => call.problems)).toEqual([]);
  });

  it('the stand-in rejects what the description does not declare (the check can fail)', async () => {
    const response = await fetch(`${standIn.apiUrl}/repos/acme/infra/pulls`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${standIn.token}`,
        accept: 'application/vnd.github+json',
        'x-github-api-version': '2022-11-28',
      },
      body: JSON.stringify({ title: 't', head: 'h', base: 'main', reviewers: ['someone'], draft: 'yes' }),
    });
    expect(response.status).toBe(422);
    expect(standIn.calls.at(-1)?.problems).toEqual(
      expect.arrayContaining(['body/draft must be boolean', 'body field reviewers is not declared']),
    );
  });

  it('names the status and hides the token when GitHub refuses', async () => {
    const forge = githubForge({
      apiUrl: standIn.apiUrl,
      repository: 'acme/other',
      token: standIn.token,
      fetch,
    });
    const error = (await forge.get(1).catch((caught: unknown) => caught)) as Error;
    expect(error.message).toContain(
      'GitHub answered 404 to GET /repos/acme/other/pulls/1 (no repository acme/other',
    );
    expect(error.message).not.toContain(standIn.token);
  });
});

describeFull(
  'gitlabForge against a stand-in checked by GitLab’s documented fields',
  'python-gitlab from PyPI',
  () => {
    let standIn: GitLabStandIn;
    beforeAll(async () => {
      standIn = await startGitLabStandIn({ project: 'data/infra' });
    });
    afterAll(() => standIn.close());

    it('opens, finds, updates and reads a merge request with documented fields only', async () => {
      const forge = gitlabForge({
        apiUrl: standIn.apiUrl,
        repository: 'data/infra',
        token: standIn.token,
        fetch,
      });
      expect(await forge.findOpen(input.head, input.base)).toBeNull();
      const opened = await forge.open(input);
      expect(opened).toEqual({
        number: 1,
        url: 'https://gitlab.example.com/data/infra/-/merge_requests/1',
        state: 'open',
        mergeCommitSha: null,
      });
      expect(standIn.requests[0]).toMatchObject({
        sourceBranch: input.head,
        targetBranch: 'main',
        description: input.body,
      });
      expect(await forge.findOpen(input.head, input.base)).toEqual(opened);
      await forge.update(1, { title: 'newer', body: 'newer body' });
      standIn.merge(1, 'b'.repeat(40));
      expect(await forge.get(1)).toMatchObject({ state: 'merged', mergeCommitSha: 'b'.repeat(40) });
      expect(standIn.calls.map((call) => call.method)).toEqual(['GET', 'POST', 'GET', 'PUT', 'GET']);
      expect(
        standIn.calls.every((call) => call.path.startsWith('/api/v4/projects/data%2Finfra/merge_requests')),
      ).toBe(true);
      expect(standIn.calls.flatMap((call) => call.problems)).toEqual([]);
    });

    it('the stand-in rejects an undocumented field', async () => {
      const response = await fetch(`${standIn.apiUrl}/projects/data%2Finfra/merge_requests`, {
        method: 'POST',
        headers: { 'private-token': standIn.token, 'content-type': 'application/json' },
        body: JSON.stringify({
          source_branch: 'a',
          target_branch: 'b',
          title: 't',
          body: 'not a GitLab field',
        }),
      });
      expect(response.status).toBe(400);
      expect(standIn.calls.at(-1)?.problems).toEqual(['create field body is not documented']);
    });
  },
);
