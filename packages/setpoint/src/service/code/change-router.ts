import type { Logger } from '../../logging/logger.js';
import type { AuditService } from '../audit/audit-service.js';
import type { ProjectService } from '../projects/project-service.js';
import type { SourceView } from './source-service.js';
import { writeRoute } from './write-route.js';

/** The two ways a change can be made: through the platform's API (the apply core) or as a proposal. */
export interface ChangeWrites {
  api(): Promise<void>;
  code(): Promise<unknown>;
}

/**
 * Sends a change where the job's configuration lives: its code (a proposal) when linked or tagged, the
 * platform's API otherwise, and nowhere when the platform says the job is deployed from code nobody
 * linked. What is not written is said in the audit trail, where the project's page shows it.
 */
export function createChangeRouter(deps: {
  sourceOf(projectId: string): Promise<SourceView>;
  projects: Pick<ProjectService, 'get'>;
  audit: Pick<AuditService, 'record'>;
  logger: Logger;
}) {
  return async function routeChange(
    projectId: string,
    write: ChangeWrites,
    options: { actor: string; automatic: boolean },
  ): Promise<void> {
    const route = writeRoute(await deps.sourceOf(projectId));
    if (route.kind === 'api') return write.api();
    if (route.kind === 'refuse') {
      // with auto-apply off, a new recommendation asks for no write: there is nothing to refuse
      if (options.automatic && !(await deps.projects.get(projectId)).settings.autoApply) return;
      await deps.audit.record({
        entity: 'project',
        entityId: projectId,
        action: 'apply-refused',
        actor: options.actor,
        detail: { reason: route.reason },
      });
      deps.logger.warn({ projectId, reason: route.reason }, 'change not written');
      return;
    }
    try {
      await write.code();
    } catch (error) {
      // a proposal that cannot be made (an expression Setpoint will not rewrite, a forge that refused) is
      // said in the audit trail; the job itself is left alone
      const message = error instanceof Error ? error.message : String(error);
      await deps.audit.record({
        entity: 'project',
        entityId: projectId,
        action: 'proposal-failed',
        actor: options.actor,
        detail: { reason: message },
      });
      deps.logger.warn({ projectId, err: error }, 'proposal not made');
    }
  };
}
