import { emrAccessCheckBody, emrConnectionSettings } from '@setpoint/api-contract/emr';
import type { OutboundClients } from '../../../platform-api/platform.js';
import type { ConnectionCheck, PlatformConnector } from '../../../service/connections/platform-connector.js';
import { EmrClient } from '../api/emr-client.js';
import { credentialProvider, type EmrConnection } from '../api/emr-connection.js';
import type { EmrIntegration } from '../emr-integration.js';
import { type PermissionCheck, readyToCollect } from './emr-access-check.js';
import { connectionOf, logStoreKeysOf, presentAccount } from './emr-account-settings.js';
import { emrSignInTarget, signInToEmr } from './emr-sign-in.js';

/** A permission's line: `held`, `missing` or `unknown`, and what it is needed for. */
function lineOf(check: PermissionCheck): ConnectionCheck['lines'][number] {
  const on = check.resource ? ` on ${check.resource}` : '';
  return {
    check: `${check.permission}${on} (${check.neededFor})`,
    ok: check.status === 'held',
    detail: `${check.status}: ${check.detail}`,
    ...(check.status === 'missing' && {
      fix: `grant ${check.permission}${on} to the account's identity`,
    }),
  };
}

/**
 * How an AWS account and region is connected through the core's connection lifecycle: its settings
 * (`emrConnectionSettings`), a sign-in with one bounded ListClusters, the permission check, and the
 * account as `GET /emr/accounts/:id` shows it.
 */
export function emrConnector(deps: {
  integration: EmrIntegration;
  outbound: Pick<OutboundClients, 'nodeAgents'>;
}): PlatformConnector {
  const { integration } = deps;
  /** A client that sends each call once, within the sign-in's limit. */
  const signInClient = (connection: EmrConnection, limitMs: number) => {
    const agents = deps.outbound.nodeAgents();
    return new EmrClient(connection, credentialProvider(connection, agents), agents, {
      maxAttempts: 1,
      timeoutMs: limitMs,
    });
  };
  const signIn = async (connection: EmrConnection, limitMs: number) => {
    const client = signInClient(connection, limitMs);
    try {
      return await signInToEmr(client, limitMs);
    } finally {
      client.close();
    }
  };
  return {
    async plan(settings, by) {
      const parsed = emrConnectionSettings.parse(settings);
      const connection = connectionOf(parsed);
      const record = await integration.accounts.record(
        { connection, logStoreKeys: logStoreKeysOf(parsed) },
        by,
      );
      return {
        record,
        target: emrSignInTarget(connection),
        signIn: (limitMs) => signIn(connection, limitMs),
        stored: (workspaceId) => integration.accounts.saveRule(workspaceId, parsed.grouping),
      };
    },
    async check(workspaceId, options, limits) {
      const { log_locations: logLocations } = emrAccessCheckBody.parse(options);
      const { account } = await integration.connect(workspaceId);
      const signedIn = await signIn(account.connection, limits.signInMs);
      // one readable reason: every permission line would fail for the same one
      if (!signedIn.ok) return signedIn;
      const checks = await integration.checkAccess(workspaceId, logLocations);
      return { ok: readyToCollect(checks), reachable: true, lines: checks.map(lineOf) };
    },
    target: (workspace) =>
      emrSignInTarget({ region: workspace.region ?? '', endpoint: workspace.host ?? undefined }),
    async describe(workspace) {
      const {
        id: _id,
        name: _name,
        created_at: _created,
        updated_at: _updated,
        ...settings
      } = presentAccount(await integration.accounts.get(workspace.id));
      return settings;
    },
    removing: (workspaceId) => integration.accounts.forget(workspaceId),
  };
}
