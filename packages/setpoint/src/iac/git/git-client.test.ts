import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkRemote, GitCheckout, remoteBranchSha, runGit } from './git-client.js';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=Team', '-c', 'user.email=team@example.com', ...args], {
    cwd,
    encoding: 'utf8',
  });

let scratch: string;
let remote: string;

beforeEach(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'setpoint-git-'));
  remote = path.join(scratch, 'infra.git');
  git(scratch, 'init', '--quiet', '--bare', '--initial-branch=trunk', remote);
  const seed = path.join(scratch, 'seed');
  git(scratch, 'clone', '--quiet', remote, seed);
  await writeFile(path.join(seed, 'main.tf'), 'num_workers = 8\n');
  git(seed, 'add', '.');
  git(seed, 'commit', '--quiet', '-m', 'seed');
  git(seed, 'push', '--quiet', 'origin', 'HEAD:trunk');
});

afterEach(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe('GitCheckout', () => {
  it("clones the remote's default branch, diffs an edit and pushes it on a branch of the remote", async () => {
    const checkout = await GitCheckout.clone(remote, undefined, scratch);
    try {
      expect(checkout.baseBranch).toBe('trunk');
      await writeFile(path.join(checkout.directory, 'main.tf'), 'num_workers = 5\n');
      const diff = await checkout.diff();
      expect(diff).toContain(
        '--- a/main.tf\n+++ b/main.tf\n@@ -1 +1 @@\n-num_workers = 8\n+num_workers = 5\n',
      );

      const sha = await checkout.pushBranch('setpoint/prj_1', 'Setpoint: 5 workers', null);
      expect(await remoteBranchSha(remote, 'setpoint/prj_1')).toBe(sha);
      expect(git(remote, 'log', '--format=%an <%ae> %s', 'setpoint/prj_1', '-1').trim()).toBe(
        'Setpoint <setpoint@localhost> Setpoint: 5 workers',
      );
      expect(git(remote, 'show', 'setpoint/prj_1:main.tf')).toBe('num_workers = 5\n');
      expect(git(remote, 'show', 'trunk:main.tf')).toBe('num_workers = 8\n');
    } finally {
      await checkout.dispose();
    }
  });

  it('makes the scratch directory on first use (a server that has not taken an upload yet)', async () => {
    const checkout = await GitCheckout.clone(remote, undefined, path.join(scratch, 'data', 'tmp'));
    try {
      expect(checkout.directory.startsWith(path.join(scratch, 'data', 'tmp'))).toBe(true);
      expect(checkout.baseBranch).toBe('trunk');
    } finally {
      await checkout.dispose();
    }
  });

  it('replaces its own branch but never a commit someone else pushed to it', async () => {
    const first = await GitCheckout.clone(remote, 'trunk', scratch);
    await writeFile(path.join(first.directory, 'main.tf'), 'num_workers = 5\n');
    const pushed = await first.pushBranch('setpoint/prj_1', 'first', null);
    await first.dispose();

    const second = await GitCheckout.clone(remote, 'trunk', scratch);
    await writeFile(path.join(second.directory, 'main.tf'), 'num_workers = 6\n');
    const replaced = await second.pushBranch('setpoint/prj_1', 'second', pushed);
    await second.dispose();
    expect(git(remote, 'show', 'setpoint/prj_1:main.tf')).toBe('num_workers = 6\n');

    // a reviewer adds a commit to the proposal branch
    const reviewer = path.join(scratch, 'reviewer');
    git(scratch, 'clone', '--quiet', '--branch', 'setpoint/prj_1', remote, reviewer);
    await writeFile(path.join(reviewer, 'README'), 'why 6\n');
    git(reviewer, 'add', '.');
    git(reviewer, 'commit', '--quiet', '-m', 'explain');
    git(reviewer, 'push', '--quiet', 'origin', 'HEAD:setpoint/prj_1');

    const third = await GitCheckout.clone(remote, 'trunk', scratch);
    await writeFile(path.join(third.directory, 'main.tf'), 'num_workers = 7\n');
    await expect(third.pushBranch('setpoint/prj_1', 'third', replaced)).rejects.toThrow(
      'the branch setpoint/prj_1 has commits Setpoint did not push',
    );
    await third.dispose();
    expect(await readFile(path.join(reviewer, 'README'), 'utf8')).toBe('why 6\n');
    expect(git(remote, 'show', 'setpoint/prj_1:README')).toBe('why 6\n');
  });

  it('refuses remotes with credentials or command transports, and names a missing repository', async () => {
    expect(() => checkRemote('https://user:secret@github.com/acme/infra.git')).toThrow('carries credentials');
    expect(() => checkRemote('ext::sh -c touch% /tmp/pwned')).toThrow('git transport "ext::" is not allowed');
    expect(() => checkRemote('--upload-pack=touch')).toThrow('is not a git remote');
    expect(() => checkRemote('git@github.com:acme/infra.git')).not.toThrow();
    await expect(GitCheckout.clone(path.join(scratch, 'missing.git'), undefined, scratch)).rejects.toThrow(
      /cloning .*missing\.git failed/,
    );
  });

  it('hands a token to git as a header in its environment, never in the URL or the arguments', async () => {
    const header = await runGit(['config', '--get', 'http.extraHeader'], {
      what: 'reading the header',
      credentials: { username: 'x-access-token', token: 'tok123' },
    });
    expect(header.trim()).toBe(
      `Authorization: Basic ${Buffer.from('x-access-token:tok123').toString('base64')}`,
    );
    expect((await runGit(['config', '--get', 'core.hooksPath'], { what: 'reading hooks' })).trim()).toBe(
      '/dev/null',
    );
  });
});
