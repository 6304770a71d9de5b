import type { FormFactorRun } from '../../../service/form-factor/form-factor-advice.js';
import type { FormFactorAdviser } from '../../../service/form-factor/form-factor-service.js';
import type { Project } from '../../../service/projects/project-service.js';
import type { RunService } from '../../../service/runs/run-service.js';
import { type EmrClusterRun, emrFormFactorAdvice } from './emr-form-factor.js';
import { emrServerlessPrice } from './emr-serverless-prices.js';
import { isEmrServerlessConfiguration } from './emr-serverless-run.js';

/** The newest runs of a project its advice reads. */
const runsRead = 50;

const where = { classic: 'on EMR on EC2', serverless: 'on EMR Serverless' };

/**
 * The EMR platform's form-factor adviser. A project's runs are steps on EMR clusters, job runs on EMR Serverless,
 * or both (a job that moved keeps one project); it is in the form of its newest run. On EC2, the runs' event logs
 * are priced as EMR Serverless would bill them at the account region's published price; on EMR Serverless, a
 * move back is advised only from the job's own measured runs on EC2.
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
      const serverlessRuns: FormFactorRun[] = [];
      let newestIsServerless: boolean | null = null;
      for (const run of [...page.items].reverse()) {
        if (run.startedAt === null || run.endedAt === null || run.pipelineState !== 'DONE') continue;
        const measured = {
          runtimeMinutes: (run.endedAt - run.startedAt) / 60_000,
          succeeded: run.status === 'SUCCESS',
          usd: run.cost?.totalUsd ?? null,
        };
        newestIsServerless = isEmrServerlessConfiguration(run.clusterConfig);
        if (newestIsServerless) serverlessRuns.push(measured);
        else
          clusterRuns.push({
            ...measured,
            profile: run.status === 'SUCCESS' ? await deps.runs.profile(project.id, run.id) : null,
          });
      }
      const form = newestIsServerless ? 'serverless' : 'classic';
      const advice = emrFormFactorAdvice({
        form,
        slaMinutes: project.settings.slaMinutes,
        region,
        clusterRuns,
        serverlessRuns,
        price: emrServerlessPrice(region),
      });
      return {
        advice,
        change: form === 'classic' ? 'EMR on EC2 → EMR Serverless' : 'EMR Serverless → EMR on EC2',
        where,
      };
    },
  };
}
