import { ValidationError } from '../../../errors/index.js';
import type { WorkspaceService } from '../../../projects/workspace-service.js';
import { createDatabricksClient, type DatabricksClient } from '../client.js';
import type { TransportOptions } from '../transport.js';

export interface WorkspaceConnection {
  workspace: Awaited<ReturnType<WorkspaceService['get']>>;
  client: DatabricksClient;
}

export type ConnectWorkspace = (workspaceId: string) => Promise<WorkspaceConnection>;

/**
 * One Databricks client per workspace (so its concurrency limit is shared by every caller),
 * rebuilt when the workspace changes.
 */
export function createWorkspaceConnector(deps: {
  workspaces: Pick<WorkspaceService, 'get' | 'credentials'>;
  transport?: Partial<Omit<TransportOptions, 'host' | 'token'>>;
}): ConnectWorkspace {
  const cache = new Map<string, { updatedAt: number; client: DatabricksClient }>();
  return async (workspaceId) => {
    const workspace = await deps.workspaces.get(workspaceId);
    if (workspace.platform !== 'databricks') {
      throw new ValidationError(
        'NOT_DATABRICKS',
        `workspace ${workspaceId} is a ${workspace.platform} workspace, not Databricks`,
      );
    }
    const cached = cache.get(workspaceId);
    if (cached && cached.updatedAt === workspace.updatedAt) return { workspace, client: cached.client };
    if (!workspace.host)
      throw new ValidationError('WORKSPACE_NO_HOST', `workspace ${workspaceId} has no Databricks host`);
    const token = (await deps.workspaces.credentials(workspaceId)).credentials?.token;
    if (!token)
      throw new ValidationError(
        'WORKSPACE_NO_TOKEN',
        `workspace ${workspaceId} has no Databricks token (credentials.token)`,
      );
    const client = createDatabricksClient({ ...deps.transport, host: workspace.host, token });
    cache.set(workspaceId, { updatedAt: workspace.updatedAt, client });
    return { workspace, client };
  };
}
