import { AppError, ConflictError } from '@setpoint/foundation/errors';
import type { Logger } from '../../logging/logger.js';
import type { ChangesInCode } from '../apply/changes-in-code.js';
import type { AuditService } from '../audit/audit-service.js';
import type { ProjectService } from '../projects/project-service.js';
import type { CodeProposal } from './code-records.js';
import type { ProposalService } from './proposal-service.js';
import type { SourceView } from './source-service.js';
import { configurationInCode, writeRoute } from './write-route.js';

/** Said when a recommendation is already what the code holds. */
export const nothingToPropose = 'the code already holds the recommendation: nothing to propose';

/** One line on a proposal made: its pull or merge request, or the branch pushed. */
export const proposedMessage = (proposal: CodeProposal): string =>
  proposal.url ? `proposed: ${proposal.url}` : `pushed ${proposal.branch} to ${proposal.repository}`;

/** Errors that are about the request itself, not the code: answered as they are. */
const aboutTheRequest = (error: unknown) =>
  error instanceof AppError && (error.kind === 'not_found' || error.code === 'RECOMMENDATION_NOT_READY');

/**
 * The apply core's hand-off to the code (`ChangesInCode`): a change to a job whose configuration lives in
 * code opens or updates the project's proposal; a job its platform says is deployed from code nobody linked
 * is not changed at all. A person is answered with the proposal or the refusal; what happens to an automatic
 * change is said in the audit trail, where the project's page shows it.
 */
export function createCodeHandoff(deps: {
  sourceOf(projectId: string): Promise<SourceView>;
  projects: Pick<ProjectService, 'get'>;
  proposals: Pick<ProposalService, 'propose' | 'proposeAutomatically'>;
  audit: Pick<AuditService, 'record'>;
  logger: Logger;
}): ChangesInCode {
  async function audited(projectId: string, action: string, actor: string, reason: string) {
    await deps.audit.record({ entity: 'project', entityId: projectId, action, actor, detail: { reason } });
    deps.logger.warn({ projectId, action, reason }, 'change not made');
  }

  return {
    async handOff(projectId, recommendationId, { actor, automatic }) {
      const route = writeRoute(await deps.sourceOf(projectId));
      if (route.kind === 'api') return null;
      if (route.kind === 'refuse') {
        if (!automatic) throw new ConflictError('DEPLOYED_FROM_CODE', route.reason);
        // with auto-apply off, a new recommendation asks for no change: there is nothing to refuse
        if ((await deps.projects.get(projectId)).settings.autoApply)
          await audited(projectId, 'apply-refused', actor, route.reason);
        return { proposalId: null, message: route.reason };
      }
      try {
        if (automatic) {
          const { proposal, reason } = await deps.proposals.proposeAutomatically(projectId, recommendationId);
          return { proposalId: proposal?.id ?? null, message: reason };
        }
        const proposal = await deps.proposals.propose(projectId, { recommendationId, actor });
        return {
          proposalId: proposal?.id ?? null,
          message: proposal ? proposedMessage(proposal) : nothingToPropose,
        };
      } catch (error) {
        if (aboutTheRequest(error)) throw error;
        const refusal = configurationInCode(projectId, route.source, error);
        if (!automatic) throw refusal;
        // an expression Setpoint will not rewrite, a forge that refused: the job itself is left alone
        await audited(projectId, 'proposal-failed', actor, refusal.message);
        return { proposalId: null, message: refusal.message };
      }
    },
  };
}
