import { accessCheckBody, databricksConnectionSettings } from '@setpoint/api-contract/databricks';
import type { PlatformConnector } from '../../../service/connections/platform-connector.js';
import { workspaceHostUrl } from '../../../service/workspaces/workspace-service.js';
import { presentWorkspaceSettings } from '../../../service/workspaces/workspace-settings.js';
import type { DatabricksIntegration } from '../databricks-integration.js';

/** The one request a sign-in sends (SCIM `Me`: any valid credential may read its own user). */
const signInTarget = (host: string) => `GET ${workspaceHostUrl(host)}/api/2.0/preview/scim/v2/Me once`;

/**
 * How a Databricks workspace is connected through the core's connection lifecycle: its settings
 * (`databricksConnectionSettings`), the sign-in and the access check of `connection/access-check.ts`, and
 * the workspace's settings as `GET /workspaces/:id` shows them (`presentWorkspaceSettings`, the one
 * translation).
 */
export function databricksConnector(
  integration: Pick<DatabricksIntegration, 'checkSignIn' | 'checkAccess'>,
): PlatformConnector {
  return {
    async plan(settings) {
      const parsed = databricksConnectionSettings.parse(settings);
      return {
        record: {
          cloud: parsed.cloud,
          region: parsed.region,
          host: parsed.host,
          planType: parsed.plan_type,
          computeType: parsed.compute_type,
          credentials: parsed.credentials,
          webhookCredentials: parsed.webhook_credentials,
        },
        target: signInTarget(parsed.host),
        async signIn(limitMs) {
          const { reachable, ...line } = await integration.checkSignIn(
            { host: parsed.host, credentials: parsed.credentials ?? null },
            limitMs,
          );
          return { ok: line.ok, reachable, lines: [line] };
        },
      };
    },
    async check(workspaceId, options) {
      const given = accessCheckBody.parse(options);
      const lines = await integration.checkAccess(workspaceId, given.log_destination, given.sql_warehouse_id);
      return {
        ok: lines.every((line) => line.ok),
        reachable: !lines.some((line) => line.check === 'reach workspace' && !line.ok),
        lines,
      };
    },
    target: (workspace) => (workspace.host ? signInTarget(workspace.host) : 'no host is set'),
    describe: async (workspace) => presentWorkspaceSettings(workspace),
  };
}
