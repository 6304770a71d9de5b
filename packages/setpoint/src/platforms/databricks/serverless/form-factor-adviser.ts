import { ValidationError } from '@setpoint/foundation/errors';
import type { FormFactor } from '../../../service/form-factor/form-factor-advice.js';
import type { FormFactorAdviser } from '../../../service/form-factor/form-factor-service.js';
import type { Project } from '../../../service/projects/project-service.js';
import type { WorkspaceService } from '../../../service/workspaces/workspace-service.js';
import { formFactorAdvice } from './form-factor-advice.js';
import { type FormFactorSources, formFactorEvidence } from './form-factor-evidence.js';

const formWords: Record<FormFactor, string> = {
  classic: 'its job cluster',
  serverless: 'serverless compute (performance optimized)',
};

/**
 * The Databricks platform's form-factor adviser: a job's runs on its job cluster and on serverless compute, the
 * workspace's serverless DBU price and its moved jobs (`formFactorEvidence`), in Databricks' words.
 */
export function createDatabricksFormFactorAdviser(
  deps: Omit<FormFactorSources, 'workspace'> & { workspaces: Pick<WorkspaceService, 'get'> },
): FormFactorAdviser {
  return {
    async advise(project: Project) {
      if (!project.workspaceId || !project.jobId)
        throw new ValidationError(
          'FORM_FACTOR_NOT_A_JOB',
          `project ${project.id} is not linked to a Databricks job: form-factor advice compares a job's runs in each form`,
        );
      const workspace = await deps.workspaces.get(project.workspaceId);
      const advice = formFactorAdvice(
        await formFactorEvidence(
          { ...deps, workspace: async () => ({ cloud: workspace.cloud, planType: workspace.planType }) },
          project,
        ),
      );
      const cluster =
        project.clusterKey && advice.from === 'classic'
          ? `job cluster \`${project.clusterKey}\``
          : formWords[advice.from];
      return {
        advice,
        change: `${cluster} → ${advice.to === 'classic' ? 'a job cluster' : formWords.serverless}`,
        where: { classic: 'on its job cluster', serverless: 'on serverless compute' },
      };
    },
  };
}
