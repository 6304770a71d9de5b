import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cliEnvOf, createHarness, type Harness } from '../service/support/service-harness.js';
import { runCli } from '../support/run-cli.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const newSecret = 'whsec-cli-new-0123456789';
const smtpPassword = 'smtp-cli-secret-4d2e';

describe('setpoint alerts update-destination', () => {
  let h: Harness;
  let env: Record<string, string>;

  beforeAll(async () => {
    h = await createHarness({ config: { outboundAllowList: '127.0.0.1' } });
    env = await cliEnvOf(h);
  });

  afterAll(async () => {
    await h?.close();
  });

  it('renames a webhook and replaces its URL and secret without printing them', async () => {
    const created = (
      await h.request('POST', '/api/v1/alerts/destinations', {
        kind: 'webhook',
        name: 'on-call',
        url: 'http://127.0.0.1:9/old',
        signing_secret: 'whsec-cli-old-0123456789',
      })
    ).json();
    const updated = await runCli(
      [
        'alerts',
        'update-destination',
        created.id,
        '--name',
        'on-call-eu',
        '--max-per-hour',
        '60',
        '--url',
        'http://127.0.0.1:10/new?token=t0k3n',
        '--signing-secret',
        newSecret,
      ],
      { env },
    );
    expect(updated.code, updated.stderr).toBe(0);
    expect(updated.stdout).toBe(`destination ${created.id} (webhook to http://127.0.0.1:10)\n`);
    const listed = await runCli(['alerts', 'destinations'], { env });
    expect(listed.stdout).toMatch(/on-call-eu\s+webhook\s+http:\/\/127\.0\.0\.1:10\s+60/);
    for (const text of [updated.stdout, listed.stdout]) {
      expect(text).not.toContain(newSecret);
      expect(text).not.toContain('t0k3n');
    }
    const row = await h.services.store.db
      .selectFrom('alert_destinations')
      .selectAll()
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    const secret = h.services.secretBox.decrypt(row.secret ?? '', `alert_destination:${created.id}`);
    expect(JSON.parse(secret)).toEqual({
      url: 'http://127.0.0.1:10/new?token=t0k3n',
      signingSecret: newSecret,
    });
    expect(row.updated_by).toBe(`api-key:${h.key.id}`);
  });

  it('changes an email destination’s recipients and SMTP password (from standard input) and drops its sign-in', async () => {
    const created = (
      await h.request('POST', '/api/v1/alerts/destinations', {
        kind: 'email',
        name: 'ops-mail',
        smtp_host: '127.0.0.1',
        smtp_port: 2525,
        tls: 'none',
        from: 'setpoint@example.com',
        to: ['a@example.com'],
      })
    ).json();
    const signIn = await runCli(
      [
        'alerts',
        'update-destination',
        created.id,
        '--to',
        'a@example.com, b@example.com',
        '--smtp-user',
        'relay',
        '--smtp-password-stdin',
        '--json',
      ],
      { env, input: `${smtpPassword}\n` },
    );
    expect(signIn.code, signIn.stderr).toBe(0);
    expect(JSON.parse(signIn.stdout).email).toMatchObject({
      to: ['a@example.com', 'b@example.com'],
      signs_in: true,
    });
    expect(signIn.stdout).not.toContain(smtpPassword);
    const dropped = await runCli(['alerts', 'update-destination', created.id, '--no-smtp-auth', '--json'], {
      env,
    });
    expect(JSON.parse(dropped.stdout).email.signs_in).toBe(false);
  });

  it('answers bad input with one line and a non-zero exit, and changes nothing', async () => {
    const slack = (
      await h.request('POST', '/api/v1/alerts/destinations', {
        kind: 'slack',
        name: 'data-eng',
        url: 'http://127.0.0.1:9/services/x',
      })
    ).json();
    const cases: { args: string[]; code: number; stderr: RegExp }[] = [
      { args: [], code: 2, stderr: /give at least one setting to change \(see --help\)$/ },
      {
        args: ['--signing-secret', 'long-enough-secret-0001'],
        code: 2,
        stderr: /signing_secret cannot be set on a slack destination \(it takes name, max_per_hour, url\)$/,
      },
      {
        args: ['--max-per-hour', '0'],
        code: 2,
        stderr: /option '--max-per-hour <n>' argument '0' is invalid/,
      },
      { args: ['--smtp-password-stdin'], code: 2, stderr: /--smtp-password-stdin needs --smtp-user$/ },
      { args: ['--no-smtp-auth', '--smtp-user', 'x'], code: 2, stderr: /cannot be used with option/ },
    ];
    for (const { args, code, stderr } of cases) {
      const answer = await runCli(['alerts', 'update-destination', slack.id, ...args], { env });
      expect(answer.code, args.join(' ')).toBe(code);
      expect(answer.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(answer.stderr.trim(), args.join(' ')).toMatch(stderr);
    }
    const listed = (await h.request('GET', '/api/v1/alerts/destinations')).json();
    expect(listed.items.find((item: { id: string }) => item.id === slack.id)).toMatchObject({
      name: 'data-eng',
      updated_at: null,
    });
  });
});
