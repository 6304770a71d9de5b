import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { alertDestinationCreateSchema } from '@setpoint/api-contract';
import { composeServices } from 'setpoint/composition/compose-services';
import { configSchema } from 'setpoint/config/schema';
import { createLogger } from 'setpoint/logging/logger';
import { SecretBox } from 'setpoint/security/secret-box';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';

describe('master key rotation', () => {
  it('keeps old secrets readable after rotation and re-encrypts every one of them under the new key', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'setpoint-rotation-'));
    const oldKey = `old:${randomBytes(32).toString('base64')}`;
    const newKey = `new:${randomBytes(32).toString('base64')}`;
    const open = (masterKey: string) =>
      composeServices({
        config: configSchema.parse({ dataDir, masterKey, outboundAllowList: '127.0.0.1' }),
        logger: createLogger('silent'),
      });

    const before = await open(oldKey);
    const workspace = await before.workspaces.create(
      { name: 'w', platform: 'databricks', cloud: 'aws', credentials: { token: 'dapi-rotate-me' } },
      'test',
    );
    // an alert destination holds a secret too: a rotation that left it under the old key would lock the
    // server out once the old key is dropped
    const destination = await before.alerts.createDestination(
      alertDestinationCreateSchema.parse({
        kind: 'email',
        name: 'mail',
        smtp_host: '127.0.0.1',
        smtp_port: 2525,
        tls: 'none',
        from: 'setpoint@example.com',
        to: ['oncall@example.com'],
        username: 'setpoint',
        password: 'smtp-rotate-me',
      }),
      'test',
    );
    // and a forge token of a project's linked code, sealed apart from the link its repository returns
    const project = await before.projects.create({ name: 'rotation', workspaceId: workspace.id }, 'test');
    const linked = await before.sources.link(
      project.id,
      {
        repository: 'git@github.com:acme/infra.git',
        path: 'infra/jobs.tf',
        forge: 'none',
        token: 'ghp-rotate-me',
      },
      'test',
    );
    expect(linked).toMatchObject({ tokenSet: true, origin: 'link' });
    expect(JSON.stringify(linked)).not.toContain('ghp-rotate-me');
    await before.close();

    const rotated = await open(`${newKey},${oldKey}`);
    expect((await rotated.workspaces.credentials(workspace.id)).credentials).toEqual({
      token: 'dapi-rotate-me',
    });
    await rotated.close();

    const result = await runCli(['keys', 'reencrypt', '--json', '--data-dir', dataDir], {
      env: { SETPOINT_MASTER_KEY: `${newKey},${oldKey}` },
    });
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual({ rewritten: 3 });

    const after = await open(newKey);
    const row = await after.store.db.selectFrom('workspaces').selectAll().executeTakeFirstOrThrow();
    expect(SecretBox.keyIdOf(row.credentials_ciphertext ?? '')).toBe('new');
    const destinationRow = await after.store.db
      .selectFrom('alert_destinations')
      .select('secret')
      .where('id', '=', destination.id)
      .executeTakeFirstOrThrow();
    expect(SecretBox.keyIdOf(destinationRow.secret ?? '')).toBe('new');
    expect((await after.workspaces.credentials(workspace.id)).credentials).toEqual({
      token: 'dapi-rotate-me',
    });
    const sourceRow = await after.store.db
      .selectFrom('project_sources')
      .select('token_ciphertext')
      .where('project_id', '=', project.id)
      .executeTakeFirstOrThrow();
    expect(SecretBox.keyIdOf(sourceRow.token_ciphertext ?? '')).toBe('new');
    expect(await after.sources.token(project.id)).toBe('ghp-rotate-me');
    await after.close();
  });
});
