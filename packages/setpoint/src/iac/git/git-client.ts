import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { ConflictError, UpstreamError, ValidationError } from '@setpoint/foundation/errors';

/** HTTP(S) credentials for a remote: sent as a header through git's environment, never in a URL or argv. */
export interface GitCredentials {
  username: string;
  token: string;
}

export interface GitOptions {
  credentials?: GitCredentials | undefined;
  timeoutMs?: number | undefined;
  /** Who Setpoint's commits are by. */
  author?: { name: string; email: string } | undefined;
}

const defaultTimeoutMs = 120_000;
const defaultAuthor = { name: 'Setpoint', email: 'setpoint@localhost' };

/**
 * A remote a user may link: https, ssh (`git@host:path` or `ssh://`), `git://`, or a local path or
 * `file://` URL. Credentials in the URL are refused (a token goes in the source's secret), as are git's
 * command-running transports (`ext::`).
 */
export function checkRemote(remote: string): void {
  const trimmed = remote.trim();
  if (trimmed === '' || trimmed.startsWith('-'))
    throw new ValidationError('INVALID_REPOSITORY', `"${remote}" is not a git remote`);
  if (/^[a-z][a-z0-9+.-]*::/i.test(trimmed))
    throw new ValidationError(
      'INVALID_REPOSITORY',
      `git transport "${trimmed.split('::')[0]}::" is not allowed`,
    );
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(trimmed)?.[1]?.toLowerCase();
  if (scheme && !['https', 'http', 'ssh', 'git', 'file'].includes(scheme))
    throw new ValidationError('INVALID_REPOSITORY', `git remotes over ${scheme}:// are not supported`);
  if (scheme && scheme !== 'file' && scheme !== 'ssh' && new URL(trimmed).password)
    throw new ValidationError(
      'INVALID_REPOSITORY',
      'the repository URL carries credentials; give the token separately (it is stored encrypted)',
    );
}

function redact(text: string, credentials: GitCredentials | undefined): string {
  const plain = credentials ? text.replaceAll(credentials.token, '***') : text;
  return plain.replace(/(https?:\/\/)[^/@\s]+@/g, '$1***@');
}

/** The environment every git command runs with: no prompts, no hooks, known transports, the token as a header. */
function gitEnvironment(credentials: GitCredentials | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    GIT_TERMINAL_PROMPT: '0',
    GCM_INTERACTIVE: 'never',
    GIT_ALLOW_PROTOCOL: 'file:git:http:https:ssh',
    GIT_SSH_COMMAND: process.env.GIT_SSH_COMMAND ?? 'ssh -o BatchMode=yes',
    GIT_CONFIG_COUNT: '1',
    GIT_CONFIG_KEY_0: 'core.hooksPath',
    GIT_CONFIG_VALUE_0: '/dev/null',
  };
  if (credentials) {
    const basic = Buffer.from(`${credentials.username}:${credentials.token}`).toString('base64');
    env.GIT_CONFIG_COUNT = '2';
    env.GIT_CONFIG_KEY_1 = 'http.extraHeader';
    env.GIT_CONFIG_VALUE_1 = `Authorization: Basic ${basic}`;
  }
  return env;
}

export async function runGit(
  args: string[],
  options: GitOptions & { cwd?: string | undefined; what: string },
): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      args,
      {
        cwd: options.cwd,
        env: gitEnvironment(options.credentials),
        timeout: options.timeoutMs ?? defaultTimeoutMs,
        maxBuffer: 64 * 1024 * 1024,
        encoding: 'utf8',
      },
      (error, stdout, stderr) => {
        if (!error) return resolve(stdout);
        const detail = redact(stderr || error.message, options.credentials)
          .trim()
          .split('\n')
          .slice(-3)
          .join(' ');
        if ((error as NodeJS.ErrnoException).code === 'ENOENT')
          return reject(new UpstreamError('GIT_MISSING', 'git is not installed on the Setpoint server'));
        reject(new UpstreamError('GIT_FAILED', `${options.what} failed: ${detail}`));
      },
    );
  });
}

/** What the remote holds: its default branch, and a branch's commit (null when the branch does not exist). */
export async function remoteBranchSha(
  remote: string,
  branch: string,
  options: GitOptions = {},
): Promise<string | null> {
  const output = await runGit(['ls-remote', '--heads', '--', remote, `refs/heads/${branch}`], {
    ...options,
    what: `reading ${branch} of ${redact(remote, options.credentials)}`,
  });
  return output.split('\t')[0]?.trim() || null;
}

/**
 * A shallow clone of one branch of a remote in a temporary directory: the files the editors read and
 * write, `git diff` of what they changed, and a commit pushed to a branch of the remote.
 */
export class GitCheckout {
  private constructor(
    readonly directory: string,
    readonly remote: string,
    readonly baseBranch: string,
    readonly baseSha: string,
    private readonly options: GitOptions,
  ) {}

  /** Clones `branch` (the remote's default branch when absent) into a new directory under `scratchDir`. */
  static async clone(
    remote: string,
    branch: string | undefined,
    scratchDir: string,
    options: GitOptions = {},
  ): Promise<GitCheckout> {
    checkRemote(remote);
    // the data directory's scratch space is made on first use (a server that has not taken an upload yet)
    await mkdir(scratchDir, { recursive: true });
    const directory = await mkdtemp(path.join(scratchDir, 'iac-'));
    try {
      const args = ['clone', '--quiet', '--depth', '1', '--no-tags', '--single-branch'];
      if (branch) args.push('--branch', branch);
      await runGit([...args, '--', remote, directory], {
        ...options,
        what: `cloning ${redact(remote, options.credentials)}`,
      });
      const git = (what: string, ...rest: string[]) => runGit(rest, { ...options, cwd: directory, what });
      const base = (await git('reading the branch', 'rev-parse', '--abbrev-ref', 'HEAD')).trim();
      if (base === 'HEAD')
        throw new ConflictError(
          'EMPTY_REPOSITORY',
          `${redact(remote, options.credentials)} has no commits to propose on`,
        );
      const sha = (await git('reading the commit', 'rev-parse', 'HEAD')).trim();
      return new GitCheckout(directory, remote, base, sha, options);
    } catch (error) {
      await rm(directory, { recursive: true, force: true });
      throw error;
    }
  }

  private git(what: string, ...args: string[]): Promise<string> {
    return runGit(args, { ...this.options, cwd: this.directory, what });
  }

  /** The unified diff of the working tree against the base commit (`a/` and `b/` paths, as `git diff` writes). */
  async diff(): Promise<string> {
    await this.git('staging the edit', 'add', '--all');
    return this.git(
      'diffing the edit',
      'diff',
      '--cached',
      '--no-color',
      '--no-ext-diff',
      '--no-renames',
      'HEAD',
    );
  }

  /**
   * Commits the working tree on `branch` and pushes it. The branch is replaced only while it still holds
   * what Setpoint last pushed (`expectedSha`, or nothing): a commit a reviewer added is never overwritten.
   */
  async pushBranch(branch: string, message: string, expectedSha: string | null): Promise<string> {
    const author = this.options.author ?? defaultAuthor;
    await this.git('creating the branch', 'checkout', '--quiet', '-B', branch);
    await this.git('staging the edit', 'add', '--all');
    await this.git(
      'committing the edit',
      '-c',
      `user.name=${author.name}`,
      '-c',
      `user.email=${author.email}`,
      'commit',
      '--quiet',
      '--no-verify',
      '-m',
      message,
    );
    const sha = (await this.git('reading the commit', 'rev-parse', 'HEAD')).trim();
    const lease = `--force-with-lease=refs/heads/${branch}:${expectedSha ?? ''}`;
    try {
      await this.git(`pushing ${branch}`, 'push', '--quiet', lease, 'origin', `HEAD:refs/heads/${branch}`);
    } catch (error) {
      if (error instanceof UpstreamError && /stale info|rejected|fetch first/.test(error.message))
        throw new ConflictError(
          'PROPOSAL_BRANCH_CHANGED',
          `the branch ${branch} has commits Setpoint did not push; merge or close that proposal (or delete the branch) before Setpoint updates it`,
        );
      throw error;
    }
    return sha;
  }

  async dispose(): Promise<void> {
    await rm(this.directory, { recursive: true, force: true });
  }
}
