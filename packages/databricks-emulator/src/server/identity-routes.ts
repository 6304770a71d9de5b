import type { FastifyInstance } from 'fastify';
import { type RouteKit, registerApi } from './route-kit.js';
import { workspaceUser } from './workspace-user.js';

/**
 * SCIM `Me` (`GET /api/2.0/preview/scim/v2/Me`): the token's user, as Databricks' Current User API answers
 * it (`w.current_user.me()`), with the workspace id in `X-Databricks-Org-Id` (`w.get_workspace_id()`).
 */
export function registerIdentityRoutes(app: FastifyInstance, kit: RouteKit, workspaceId: string): void {
  registerApi(app, kit, 'GET', '/preview/scim/v2/Me', ['2.0'], ({ reply }) => {
    reply.header('x-databricks-org-id', workspaceId);
    return {
      schemas: [
        'urn:ietf:params:scim:schemas:core:2.0:User',
        'urn:ietf:params:scim:schemas:extension:workspace:2.0:User',
      ],
      id: workspaceUser.id,
      userName: workspaceUser.userName,
      displayName: workspaceUser.displayName,
      active: true,
      emails: [{ type: 'work', value: workspaceUser.userName, primary: true }],
      name: { givenName: 'Setpoint', familyName: 'Emulator' },
      groups: [
        { display: 'admins', type: 'direct', value: '1000000000000001', $ref: 'Groups/1000000000000001' },
      ],
      entitlements: [{ value: 'workspace-access' }, { value: 'allow-cluster-create' }],
    };
  });
}
