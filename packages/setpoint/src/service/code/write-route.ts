import { ConflictError } from '@setpoint/foundation/errors';
import type { ProjectSource } from './code-records.js';
import type { SourceView } from './source-service.js';

/**
 * Where a change to a project's cluster goes: through the platform's API, into its code as a proposal,
 * or nowhere, said why. A job whose code is known is written there unless the team lets Setpoint write
 * the API too; a job its platform says is deployed from code that is not linked is never written behind
 * that code's back.
 */
export type WriteRoute =
  | { kind: 'api' }
  | { kind: 'code'; source: ProjectSource }
  | { kind: 'refuse'; reason: string };

export function writeRoute(view: SourceView): WriteRoute {
  if (view.source && !view.source.apiWrites) return { kind: 'code', source: view.source };
  if (view.source) return { kind: 'api' };
  const declared = view.declared;
  if (declared?.deployedFrom === 'bundle' || declared?.locked)
    return {
      kind: 'refuse',
      reason: `the job is deployed from ${declared.deployedFrom === 'bundle' ? 'a Databricks bundle' : 'code'}${declared.locked ? ' and locked against other edits' : ''}: a change written through the API would be reverted by the next deploy. Link its code (setpoint projects link-source) so Setpoint proposes the change there${view.tagProblem ? ` (${view.tagProblem})` : ''}`,
    };
  // the team said where its code is and Setpoint cannot read it: guessing "nowhere" would write behind it
  if (view.tagProblem)
    return {
      kind: 'refuse',
      reason: `the job names its code, but ${view.tagProblem}: fix the tag or link the code (setpoint projects link-source)`,
    };
  return { kind: 'api' };
}

/**
 * The refusal of a write through the platform's API to a job whose configuration lives in code: it names the
 * file and the command that proposes there, with why a proposal could not be made when one was tried.
 */
export function configurationInCode(
  projectId: string,
  source: ProjectSource,
  cause?: unknown,
): ConflictError {
  const command = `setpoint iac propose ${projectId}`;
  const why = cause instanceof Error ? cause.message : cause === undefined ? null : String(cause);
  return new ConflictError(
    'CONFIGURATION_IN_CODE',
    why
      ? `project ${projectId}'s cluster is defined in ${source.repository}//${source.path} and the proposal there could not be made: ${why}; fix that, then run ${command}`
      : `project ${projectId}'s cluster is defined in ${source.repository}//${source.path}: Setpoint proposes changes there (${command}) instead of writing the job through the API`,
    {
      cause,
      details: {
        source: { format: source.format, repository: source.repository, path: source.path },
        command,
        ...(why ? { proposal_error: why } : {}),
      },
    },
  );
}
