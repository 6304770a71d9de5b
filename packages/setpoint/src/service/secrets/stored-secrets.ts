import { ConfigError } from '@setpoint/foundation/errors';
import { type MasterKey, SecretBox } from '../../security/secret-box.js';
import { alertSecretScope } from '../alerts/alert-service.js';
import { sourceTokenScope } from '../code/source-service.js';
import type { Repositories } from '../repositories.js';
import { workspaceSecretScope } from '../workspaces/workspace-service.js';

/** One encrypted secret the database holds: its envelope, the associated data it is bound to, and its holder. */
export interface StoredSecret {
  holder: string;
  envelope: string;
  scope: string;
  /** Stores the same secret under another envelope (re-encryption). */
  rewrite(envelope: string): Promise<void>;
}

/**
 * Every encrypted secret in the database: workspace and EMR account credentials, alert destination
 * secrets, the forge tokens of linked code. A table that starts holding secrets adds them here, so that key checks and re-encryption see them.
 */
export async function storedSecrets(
  repositories: Pick<Repositories, 'workspaces' | 'alerts' | 'sources'>,
): Promise<StoredSecret[]> {
  const secrets: StoredSecret[] = [];
  for (const workspace of await repositories.workspaces.list()) {
    for (const [column, field] of [
      ['credentials_ciphertext', 'credentials'],
      ['webhook_credentials_ciphertext', 'webhook_credentials'],
    ] as const) {
      const envelope = workspace[column];
      if (envelope === null) continue;
      secrets.push({
        holder: `workspace ${workspace.name}`,
        envelope,
        scope: workspaceSecretScope(workspace.id, field),
        rewrite: (rewritten) => repositories.workspaces.rewriteSecret(workspace.id, column, rewritten),
      });
    }
  }
  for (const destination of await repositories.alerts.listDestinations())
    if (destination.secret !== null)
      secrets.push({
        holder: `alert destination ${destination.name}`,
        envelope: destination.secret,
        scope: alertSecretScope(destination.id),
        rewrite: (rewritten) => repositories.alerts.rewriteSecret(destination.id, rewritten),
      });
  for (const source of await repositories.sources.withTokens())
    secrets.push({
      holder: `the linked code of project ${source.projectId}`,
      envelope: source.tokenCiphertext,
      scope: sourceTokenScope(source.projectId),
      rewrite: (rewritten) => repositories.sources.replaceToken(source.projectId, rewritten),
    });
  return secrets;
}

/** Re-encrypts every secret not yet under the active master key (after a rotation); answers how many. */
export async function reencryptStoredSecrets(
  secrets: readonly StoredSecret[],
  box: SecretBox,
): Promise<number> {
  let rewritten = 0;
  for (const secret of secrets) {
    if (SecretBox.keyIdOf(secret.envelope) === box.activeKeyId) continue;
    await secret.rewrite(box.encrypt(box.decrypt(secret.envelope, secret.scope), secret.scope));
    rewritten += 1;
  }
  return rewritten;
}

/** The master key ids the stored secrets were encrypted with. */
export function secretKeyIds(secrets: readonly StoredSecret[]): string[] {
  return [...new Set(secrets.map((secret) => SecretBox.keyIdOf(secret.envelope) ?? '?'))];
}

function named(holders: readonly string[]): string {
  const unique = [...new Set(holders)];
  return unique.slice(0, 3).join(', ') + (unique.length > 3 ? ` and ${unique.length - 3} more` : '');
}

/**
 * Refuses keys that cannot read the secrets a database holds: a database restored without the master key
 * it was written with would otherwise get a newly minted key (or run with another one), and every request
 * that needs a stored secret (the EMR account list, a workspace check, an alert) would answer 500. Each key
 * id is tried on one of its secrets, so a different key under the same id is refused too. `keys` are the
 * configured keys, or undefined when none is configured and one would be minted; `keyLocation` names where
 * they come from, for the message.
 */
export function assertSecretsReadable(
  secrets: readonly StoredSecret[],
  keys: readonly MasterKey[] | undefined,
  keyLocation: string,
): void {
  const known = new Set((keys ?? []).map((key) => key.id));
  const missing = secrets.filter((secret) => !known.has(SecretBox.keyIdOf(secret.envelope) ?? ''));
  if (missing.length > 0)
    throw new ConfigError(
      `the database holds secrets (${named(missing.map((secret) => secret.holder))}) encrypted with master key ` +
        `${secretKeyIds(missing)
          .map((id) => `"${id}"`)
          .join(', ')}, which ${keyLocation} does not hold: restore that master key (it is kept apart from ` +
        'the database backup) or set SETPOINT_MASTER_KEY to it, older keys after the active one',
    );
  if (!keys || secrets.length === 0) return;
  const box = new SecretBox([...keys]);
  for (const keyId of secretKeyIds(secrets)) {
    const sample = secrets.find((secret) => SecretBox.keyIdOf(secret.envelope) === keyId);
    if (!sample) continue;
    try {
      box.decrypt(sample.envelope, sample.scope);
    } catch {
      throw new ConfigError(
        `master key "${keyId}" in ${keyLocation} does not decrypt the secrets of ${sample.holder}: it is not ` +
          'the key they were encrypted with; restore the master key this database was backed up with',
      );
    }
  }
}
