import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../support/run-cli.js';
import { cliEnvOf, createHarness, type Harness } from './support/service-harness.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const smtpPassword = 'smtp-secret-do-not-echo-7f3a';

describe('alert destinations from the CLI and rule edits', () => {
  let h: Harness;
  let env: Record<string, string>;

  beforeAll(async () => {
    h = await createHarness({ config: { outboundAllowList: '127.0.0.1' } });
    env = await cliEnvOf(h);
  });

  afterAll(async () => {
    await h?.close();
  });

  it('adds an email destination with its SMTP password from standard input, stored encrypted, never echoed', async () => {
    const added = await runCli(
      [
        'alerts',
        'add-email',
        '--name',
        'ops-mail',
        '--smtp-host',
        '127.0.0.1',
        '--smtp-port',
        '2525',
        '--tls',
        'none',
        '--smtp-user',
        'setpoint',
        '--smtp-password-stdin',
        '--from',
        'setpoint@example.com',
        '--to',
        'a@example.com, b@example.com',
        '--json',
      ],
      { env, input: `${smtpPassword}\n` },
    );
    expect(added.code, added.stderr).toBe(0);
    const destination = JSON.parse(added.stdout);
    expect(destination).toMatchObject({ kind: 'email', name: 'ops-mail', target: 'smtp://127.0.0.1:2525' });
    expect(added.stdout + added.stderr).not.toContain(smtpPassword);

    const listed = await runCli(['alerts', 'destinations'], { env });
    expect(listed.stdout).toMatch(/ops-mail\s+email\s+smtp:\/\/127\.0\.0\.1:2525/);
    expect(listed.stdout).not.toContain(smtpPassword);
    const rows = await h.services.store.db.selectFrom('alert_destinations').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(smtpPassword);
    expect(JSON.parse(rows[0]?.settings ?? '{}')).toMatchObject({
      to: ['a@example.com', 'b@example.com'],
      tls: 'none',
    });
    // What the sender will use: the password decrypts from the stored envelope.
    const secret = h.services.secretBox.decrypt(rows[0]?.secret ?? '', `alert_destination:${destination.id}`);
    expect(JSON.parse(secret)).toEqual({ username: 'setpoint', password: smtpPassword });
  });

  it('turns a rule off and on and changes its parameters, from the API and the CLI', async () => {
    const destination = (await h.request('GET', '/api/v1/alerts/destinations')).json().items[0].id;
    const rule = (
      await h.request('POST', '/api/v1/alerts/rules', { event: 'cost_spike', destination_id: destination })
    ).json();
    const off = await h.request('PATCH', `/api/v1/alerts/rules/${rule.id}`, { enabled: false });
    expect(off.json()).toMatchObject({ enabled: false, params: { threshold_pct: 20, window_runs: 5 } });

    const tuned = await runCli(
      ['alerts', 'update-rule', rule.id, '--enable', '--threshold-pct', '35', '--json'],
      {
        env,
      },
    );
    expect(tuned.code, tuned.stderr).toBe(0);
    expect(JSON.parse(tuned.stdout)).toMatchObject({
      enabled: true,
      params: { threshold_pct: 35, window_runs: 5 },
    });
    const stored = (await h.request('GET', '/api/v1/alerts/rules'))
      .json()
      .items.find((item: { id: string }) => item.id === rule.id);
    expect(stored).toMatchObject({
      enabled: true,
      params: { threshold_pct: 35, window_runs: 5, at_risk_fraction: 0.9 },
    });

    const listed = await runCli(['alerts', 'update-rule', rule.id, '--disable'], { env });
    expect(listed.stdout).toBe(`rule ${rule.id}: cost_spike, off\n`);
    const both = await runCli(['alerts', 'update-rule', rule.id, '--enable', '--disable'], { env });
    expect(both.code).toBe(2);
    const nothing = await runCli(['alerts', 'update-rule', rule.id], { env });
    expect(nothing.stderr).toMatch(/give --enable, --disable, --destination or a parameter/);
    expect((await h.request('PATCH', `/api/v1/alerts/rules/${rule.id}`, {})).status).toBe(400);
    expect(
      (await h.request('PATCH', `/api/v1/alerts/rules/${rule.id}`, { destination_id: 'dst_missing' })).status,
    ).toBe(404);
    // Each change that happened is in the audit trail, with who made it; the refused ones are not.
    const trail = await h.services.store.db
      .selectFrom('audit_log')
      .select(['action', 'actor', 'detail'])
      .where('entity', '=', 'alert_rule')
      .where('entity_id', '=', rule.id)
      .orderBy('id')
      .execute();
    expect(trail.map((entry) => entry.action)).toEqual(['create', 'update', 'update', 'update']);
    expect(new Set(trail.map((entry) => entry.actor))).toEqual(new Set([`api-key:${h.key.id}`]));
    expect(JSON.parse(trail[2]?.detail ?? '{}')).toMatchObject({
      event: 'cost_spike',
      changes: { enabled: true, params: { threshold_pct: 35 } },
    });
  });

  it('sends again only what Setpoint gave up on: 404 for an unknown notification, 409 for a sent one', async () => {
    const destination = (await h.request('GET', '/api/v1/alerts/destinations')).json().items[0].id;
    const rule = (
      await h.request('POST', '/api/v1/alerts/rules', { event: 'sla_missed', destination_id: destination })
    ).json();
    const row = {
      rule_id: rule.id,
      destination_id: destination,
      project_id: null,
      event: 'sla_missed',
      title: 'a run over its SLA',
      detail: '{}',
      error: null,
      created_at: Date.now(),
      attempts: 1,
      next_attempt_at: null,
    };
    const db = h.services.store.db;
    await db
      .insertInto('notifications')
      .values([
        { ...row, id: 'ntf_sent', dedupe_key: 'k-sent', status: 'SENT' },
        { ...row, id: 'ntf_retrying', dedupe_key: 'k-retrying', status: 'RETRYING' },
      ])
      .execute();
    const missing = await h.request('POST', '/api/v1/notifications/ntf_missing/retry', {});
    expect(missing.status).toBe(404);
    expect(missing.json().error.message).toBe('notification ntf_missing does not exist');
    for (const id of ['ntf_sent', 'ntf_retrying']) {
      const refused = await h.request('POST', `/api/v1/notifications/${id}/retry`, {});
      expect(refused.status).toBe(409);
      expect(refused.json().error.code).toBe('NOTIFICATION_NOT_RETRYABLE');
    }
    const unchanged = await db.selectFrom('notifications').select(['id', 'status', 'attempts']).execute();
    expect(unchanged).toEqual(
      expect.arrayContaining([
        { id: 'ntf_sent', status: 'SENT', attempts: 1 },
        { id: 'ntf_retrying', status: 'RETRYING', attempts: 1 },
      ]),
    );
  });
});
