import type { FormFactorAdviser } from '../../../service/form-factor/form-factor-service.js';
import type { Project } from '../../../service/projects/project-service.js';
import type { RunService } from '../../../service/runs/run-service.js';
import { type EmrClusterRun, emrFormFactorAdvice } from './emr-form-factor.js';
import { emrServerlessPrice } from './emr-serverless-prices.js';

/** The newest runs of a workload its advice reads. */
const runsRead = 50;

/**
 * The EMR platform's form-factor adviser: a workload's runs on EMR on EC2 (with their event logs) priced as EMR
 * Serverless would bill them, at the account region's published price. A workload's runs are all on EC2 today
 * (an EMR Serverless application is not imported as a project), so the advice goes one way: EC2 → Serverless.
 */
export function createEmrFormFactorAdviser(deps: {
  runs: Pick<RunService, 'list' | 'profile'>;
  region(workspaceId: string | null): Promise<string>;
}): FormFactorAdviser {
  return {
    async advise(project: Project) {
      const region = await deps.region(project.workspaceId);
      const page = await deps.runs.list(project.id, { limit: runsRead, offset: 0 });
      const clusterRuns: EmrClusterRun[] = [];
      for (const run of [...page.items].reverse()) {
        if (run.startedAt === null || run.endedAt === null || run.pipelineState !== 'DONE') continue;
        clusterRuns.push({
          runtimeMinutes: (run.endedAt - run.startedAt) / 60_000,
          succeeded: run.status === 'SUCCESS',
          usd: run.cost?.totalUsd ?? null,
          profile: run.status === 'SUCCESS' ? await deps.runs.profile(project.id, run.id) : null,
        });
      }
      const advice = emrFormFactorAdvice({
        form: 'classic',
        slaMinutes: project.settings.slaMinutes,
        region,
        clusterRuns,
        serverlessRuns: [],
        price: emrServerlessPrice(region),
      });
      return {
        advice,
        change: 'EMR on EC2 → EMR Serverless',
        where: { classic: 'on EMR on EC2', serverless: 'on EMR Serverless' },
      };
    },
  };
}
