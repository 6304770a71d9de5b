import type { Command } from '@commander-js/extra-typings';
import { countOf } from '@setpoint/foundation/words';
import Table from 'cli-table3';
import { openStore } from '../../composition/open-store.js';
import { loadConfig } from '../../config/load-config.js';
import { CredentialSigner } from '../../security/credentials.js';
import { loadKeyMaterial } from '../../security/key-material.js';
import { SecretBox } from '../../security/secret-box.js';
import { createApiKeyService } from '../../service/auth/api-key-service.js';
import { createRepositories } from '../../service/repositories.js';
import { reencryptStoredSecrets, storedSecrets } from '../../service/secrets/stored-secrets.js';

async function withApiKeys<T>(
  dataDir: string | undefined,
  use: (keys: ReturnType<typeof createApiKeyService>) => Promise<T>,
) {
  const config = loadConfig({ dataDir });
  const store = await openStore(config);
  try {
    const material = loadKeyMaterial({
      dataDir: config.dataDir,
      masterKey: config.masterKey,
      serverSecret: config.serverSecret,
    });
    return await use(
      createApiKeyService({
        keys: createRepositories(store.db).apiKeys,
        signer: new CredentialSigner(material.serverSecret),
        accessTokenTtlSeconds: config.accessTokenTtlSeconds,
      }),
    );
  } finally {
    await store.close();
  }
}

const isoOrDash = (ms: number | null) => (ms === null ? '-' : new Date(ms).toISOString());

export function registerKeysCommand(program: Command): void {
  const keys = program
    .command('keys')
    .description('manage API keys directly on the database (local admin)')
    .addHelpText(
      'after',
      '\nExamples:\n  setpoint keys create --name ci --json\n  setpoint keys list\n  setpoint keys revoke spk_…\n  setpoint keys reencrypt',
    );

  keys
    .command('create')
    .description('create an API key; its secret is printed once and never again')
    .requiredOption('--name <name>', 'what the key is for')
    .option('--data-dir <dir>', 'data directory (default ./.setpoint)')
    .option('--json', 'print {id, secret, name} as JSON')
    .addHelpText(
      'after',
      '\nExamples:\n  setpoint keys create --name airflow\n  setpoint keys create --name ci --json | jq -r .secret',
    )
    .action(async (options) => {
      const created = await withApiKeys(options.dataDir, (service) => service.create(options.name, 'cli'));
      if (options.json) process.stdout.write(`${JSON.stringify(created)}\n`);
      else
        process.stdout.write(
          `API key ${created.name}\n  id:     ${created.id}\n  secret: ${created.secret}\nStore the secret now: it cannot be shown again.\n`,
        );
    });

  keys
    .command('list')
    .description('list API keys (never their secrets)')
    .option('--data-dir <dir>', 'data directory (default ./.setpoint)')
    .option('--json', 'print the keys as JSON')
    .addHelpText('after', '\nExamples:\n  setpoint keys list\n  setpoint keys list --json')
    .action(async (options) => {
      const list = await withApiKeys(options.dataDir, (service) => service.list());
      if (options.json) {
        process.stdout.write(`${JSON.stringify(list)}\n`);
        return;
      }
      const table = new Table({ head: ['id', 'name', 'created', 'last used', 'revoked'] });
      for (const key of list) {
        table.push([
          key.id,
          key.name,
          isoOrDash(key.createdAt),
          isoOrDash(key.lastUsedAt),
          isoOrDash(key.revokedAt),
        ]);
      }
      process.stdout.write(`${table.toString()}\n`);
    });

  keys
    .command('reencrypt')
    .description(
      're-encrypt stored secrets (workspaces, EMR accounts, alert destinations, forge tokens) under the first master key (after rotation)',
    )
    .option('--data-dir <dir>', 'data directory (default ./.setpoint)')
    .option('--json', 'print {rewritten} as JSON')
    .addHelpText(
      'after',
      '\nRotation: put the new key first, keep the old ones, run this, then drop the old keys.\n\nExamples:\n  SETPOINT_MASTER_KEY="k2:<new base64>,k1:<old base64>" setpoint keys reencrypt',
    )
    .action(async (options) => {
      const config = loadConfig({ dataDir: options.dataDir });
      const store = await openStore(config);
      try {
        const material = loadKeyMaterial({
          dataDir: config.dataDir,
          masterKey: config.masterKey,
          serverSecret: config.serverSecret,
        });
        const rewritten = await reencryptStoredSecrets(
          await storedSecrets(createRepositories(store.db)),
          new SecretBox(material.masterKeys),
        );
        process.stdout.write(
          options.json
            ? `${JSON.stringify({ rewritten })}\n`
            : `re-encrypted ${countOf(rewritten, 'secret')}\n`,
        );
      } finally {
        await store.close();
      }
    });

  keys
    .command('revoke')
    .description('revoke an API key; its tokens stop working at once')
    .argument('<id>', 'the key id (spk_…)')
    .option('--data-dir <dir>', 'data directory (default ./.setpoint)')
    .addHelpText('after', '\nExamples:\n  setpoint keys revoke spk_AbC123')
    .action(async (id, options) => {
      await withApiKeys(options.dataDir, (service) => service.revoke(id, 'cli'));
      process.stdout.write(`revoked ${id}\n`);
    });
}
