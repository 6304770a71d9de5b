import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openStore } from 'setpoint/composition/open-store';
import { createUserService } from 'setpoint/service/auth/user-service';
import { createRepositories } from 'setpoint/service/repositories';
import { describe, expect, it, vi } from 'vitest';
import { runCli } from '../support/run-cli.js';

vi.setConfig({ testTimeout: 60_000 });

const dataDir = mkdtempSync(path.join(tmpdir(), 'setpoint-users-cli-'));
const users = (...args: string[]) => runCli(['users', ...args, '--data-dir', dataDir]);

/** What the database holds, read as the server would. */
async function stored() {
  const store = await openStore({ dataDir, databaseUrl: undefined });
  try {
    const service = createUserService(createRepositories(store.db));
    const trail = await store.db
      .selectFrom('audit_log')
      .select(['action', 'actor', 'detail'])
      .where('entity', '=', 'user')
      .orderBy('id')
      .execute();
    return { list: await service.list(), trail };
  } finally {
    await store.close();
  }
}

async function canSignIn(username: string, password: string): Promise<boolean> {
  const store = await openStore({ dataDir, databaseUrl: undefined });
  try {
    await createUserService(createRepositories(store.db)).signIn(username, password);
    return true;
  } catch {
    return false;
  } finally {
    await store.close();
  }
}

describe('setpoint users: disable, enable, set-role, reset-password, delete', () => {
  it('manages users on the database, each change audited as the local admin', async () => {
    for (const [name, role] of [
      ['ana', 'admin'],
      ['bo', 'editor'],
    ] as const) {
      const created = await runCli(
        ['users', 'create', '--username', name, '--role', role, '--password-stdin', '--data-dir', dataDir],
        { input: `${name} initial password` },
      );
      expect(created.code, created.stderr).toBe(0);
    }

    const promoted = await users('set-role', 'bo', '--role', 'admin');
    expect(promoted).toMatchObject({ code: 0, stdout: 'bo is admin\n' });
    const disabled = await users('disable', 'bo');
    expect(disabled).toMatchObject({ code: 0, stdout: 'disabled bo\n' });
    expect(await canSignIn('bo', 'bo initial password')).toBe(false);
    const listed = await users('list');
    expect(listed.stdout).toMatch(/bo\s+admin\s+disabled /);
    expect(listed.stdout).toMatch(/ana\s+admin\s+active/);
    expect((await users('enable', 'bo')).stdout).toBe('enabled bo\n');
    expect(await canSignIn('bo', 'bo initial password')).toBe(true);

    const reset = await users('reset-password', 'bo');
    expect(reset.code, reset.stderr).toBe(0);
    const generated = /password \(shown once\): (\S+)\n$/.exec(reset.stdout)?.[1] ?? '';
    expect(generated.length).toBeGreaterThanOrEqual(12);
    expect(await canSignIn('bo', 'bo initial password')).toBe(false);
    expect(await canSignIn('bo', generated)).toBe(true);
    const chosen = await runCli(
      ['users', 'reset-password', 'bo', '--password-stdin', '--data-dir', dataDir],
      {
        input: 'a chosen passphrase',
      },
    );
    expect(chosen).toMatchObject({ code: 0, stdout: 'reset the password of bo; their sessions ended\n' });
    expect(chosen.stdout).not.toContain('a chosen passphrase');
    expect(await canSignIn('bo', 'a chosen passphrase')).toBe(true);

    expect((await users('delete', 'bo')).stdout).toBe('deleted bo\n');
    const after = await stored();
    expect(after.list.map((user) => user.username)).toEqual(['ana']);
    expect(after.trail.map((entry) => entry.action)).toEqual([
      'create',
      'create',
      'role_changed',
      'disabled',
      'enabled',
      'password_reset',
      'password_reset',
      'delete',
    ]);
    expect(new Set(after.trail.map((entry) => entry.actor))).toEqual(new Set(['local-admin']));
  });

  it('answers bad input with one readable line and a non-zero exit, changing nothing', async () => {
    const cases: Array<{ args: string[]; code: number; stderr: RegExp }> = [
      { args: ['disable', 'nobody'], code: 3, stderr: /^setpoint: user nobody does not exist\n$/ },
      {
        args: ['set-role', 'ana', '--role', 'wizard'],
        code: 2,
        stderr: /--role must be one of admin, editor, viewer\n$/,
      },
      { args: ['set-role', 'ana'], code: 2, stderr: /required option '--role <role>'/ },
      {
        args: ['set-role', 'ana', '--role', 'viewer'],
        code: 4,
        stderr: /this would leave no admin who can sign in: make another user admin first\n$/,
      },
      { args: ['disable', 'ana'], code: 4, stderr: /this would leave no admin who can sign in/ },
      { args: ['delete', 'ana'], code: 4, stderr: /this would leave no admin who can sign in/ },
      { args: ['reset-password', 'ghost'], code: 3, stderr: /user ghost does not exist\n$/ },
    ];
    for (const bad of cases) {
      const answer = await users(...bad.args);
      expect(answer.code, bad.args.join(' ')).toBe(bad.code);
      expect(answer.stderr, bad.args.join(' ')).toMatch(bad.stderr);
      expect(answer.stderr.trim().split('\n'), bad.args.join(' ')).toHaveLength(1);
    }
    const short = await runCli(
      ['users', 'reset-password', 'ana', '--password-stdin', '--data-dir', dataDir],
      {
        input: 'short',
      },
    );
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(/password must be at least 12 characters\n$/);
    expect(await canSignIn('ana', 'ana initial password')).toBe(true);
    const after = await stored();
    expect(after.list).toEqual([
      expect.objectContaining({ username: 'ana', role: 'admin', disabledAt: null }),
    ]);
  });
});
