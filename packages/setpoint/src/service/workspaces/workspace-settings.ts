import type { WorkspaceSettingsResource } from '@setpoint/api-contract';
import type { Workspace } from './workspace-service.js';

/**
 * The one translation of a workspace's settings to the wire: `GET /api/v1/workspaces/:id` shows them
 * beside its id and name, and they are a Databricks connection's `settings` under `/api/v1/connections`.
 */
export function presentWorkspaceSettings(workspace: Workspace): WorkspaceSettingsResource {
  return {
    cloud: workspace.cloud,
    region: workspace.region,
    host: workspace.host,
    plan_type: workspace.planType,
    compute_type: workspace.computeType,
    has_credentials: workspace.hasCredentials,
    has_webhook_credentials: workspace.hasWebhookCredentials,
  };
}
