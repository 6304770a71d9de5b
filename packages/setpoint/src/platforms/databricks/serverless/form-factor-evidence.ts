import type { CostComponent } from '@setpoint/api-contract';
import { quantile } from '@setpoint/foundation/statistics';
import type { Project, ProjectService } from '../../../service/projects/project-service.js';
import type { Run, RunService } from '../../../service/runs/run-service.js';
import type { DatabricksFormFactorRun, FormFactorEvidence } from './form-factor-advice.js';
import type { ServerlessBillingReader } from './serverless-billing-reader.js';
import { serverlessProjectKey } from './serverless-tasks.js';

/** How far back the workspace's serverless bills price a serverless DBU. */
const priceWindowMs = 30 * 86_400_000;
/** The newest runs of each form a job's advice reads. */
const runsRead = 200;

export interface FormFactorSources {
  projects: Pick<ProjectService, 'list'>;
  runs: Pick<RunService, 'list'>;
  /** The workspace's serverless billing (undefined: no SQL warehouse linked). */
  billing(workspaceId: string): Promise<ServerlessBillingReader | undefined>;
  workspace(workspaceId: string): Promise<{ cloud: string | null; planType: string | null }>;
  now?: () => number;
}

/**
 * A run's DBUs, whatever they pay for: a cluster's DBU fee or serverless compute (both billed by Databricks in
 * DBUs); null when its cost names none.
 */
function dbusOf(components: readonly CostComponent[]): number | null {
  const dbu = components.filter(
    (component) => component.billed_by === 'platform' && component.unit === 'DBU',
  );
  return dbu.length === 0 ? null : dbu.reduce((sum, component) => sum + component.quantity, 0);
}

function formFactorRun(run: Run): DatabricksFormFactorRun | null {
  if (run.startedAt === null || run.endedAt === null || run.pipelineState !== 'DONE') return null;
  return {
    runtimeMinutes: (run.endedAt - run.startedAt) / 60_000,
    succeeded: run.status === 'SUCCESS',
    usd: run.cost?.totalUsd ?? null,
    dbus: run.cost ? dbusOf(run.cost.components) : null,
  };
}

const isServerless = (project: Project) => project.clusterKey === serverlessProjectKey;

async function runsOf(
  sources: FormFactorSources,
  projects: readonly Project[],
): Promise<DatabricksFormFactorRun[]> {
  const runs: DatabricksFormFactorRun[] = [];
  for (const project of projects) {
    const page = await sources.runs.list(project.id, { limit: runsRead, offset: 0 });
    runs.push(...page.items.flatMap((run) => formFactorRun(run) ?? []));
  }
  return runs;
}

const medianOf = (values: number[]) => (values.length === 0 ? null : quantile(values, 0.5));

/** Median DBUs and runtime of a job's successful runs in one form, null without one that names its DBUs. */
function typical(runs: readonly DatabricksFormFactorRun[]) {
  const ok = runs.filter((run) => run.succeeded);
  const dbus = medianOf(ok.flatMap((run) => (run.dbus && run.dbus > 0 ? [run.dbus] : [])));
  const minutes = medianOf(ok.map((run) => run.runtimeMinutes).filter((m) => m > 0));
  return dbus === null || minutes === null ? null : { dbus, minutes };
}

/**
 * What the form-factor advice of a Databricks project rests on: the job's own runs in each form (its
 * job-cluster projects and its serverless project), the price of a serverless jobs DBU (the workspace's
 * serverless bills of the last 30 days, else the SKU's list price), and the workspace's other jobs that ran
 * in both forms (how their DBUs and runtime changed).
 */
export async function formFactorEvidence(
  sources: FormFactorSources,
  project: Project,
): Promise<FormFactorEvidence> {
  const workspaceId = project.workspaceId ?? '';
  const all = (await sources.projects.list({ workspaceId, sort: 'created_at', limit: 10_000, offset: 0 }))
    .items;
  const byJob = new Map<string, Project[]>();
  for (const entry of all) {
    if (!entry.jobId) continue;
    byJob.set(entry.jobId, [...(byJob.get(entry.jobId) ?? []), entry]);
  }
  const siblings = byJob.get(project.jobId ?? '') ?? [project];
  const classicRuns = await runsOf(
    sources,
    siblings.filter((entry) => !isServerless(entry)),
  );
  const serverlessRuns = await runsOf(sources, siblings.filter(isServerless));

  const conversions: FormFactorEvidence['conversions'] = [];
  for (const [jobId, projects] of byJob) {
    if (jobId === project.jobId) continue;
    const classic = projects.filter((entry) => !isServerless(entry));
    const serverless = projects.filter(isServerless);
    if (classic.length === 0 || serverless.length === 0) continue;
    const before = typical(await runsOf(sources, classic));
    const after = typical(await runsOf(sources, serverless));
    if (before && after)
      conversions.push({
        job: serverless[0]?.name ?? jobId,
        dbuRatio: after.dbus / before.dbus,
        runtimeRatio: after.minutes / before.minutes,
      });
  }

  const evidence: FormFactorEvidence = {
    form: isServerless(project) ? 'serverless' : 'classic',
    slaMinutes: project.settings.slaMinutes,
    classicRuns,
    serverlessRuns,
    serverlessPrice: null,
    conversions,
  };
  const billing = await sources.billing(workspaceId);
  if (!billing)
    return {
      ...evidence,
      serverlessPriceMissing:
        'serverless DBUs are priced in system tables: give the workspace a SQL warehouse (workspaces check --sql-warehouse-id)',
    };
  const now = (sources.now ?? Date.now)();
  const spend = await billing.spendSince(now - priceWindowMs);
  const dbus = spend.reduce((sum, entry) => sum + entry.dbus, 0);
  const usd = spend.reduce((sum, entry) => sum + entry.usd, 0);
  const runs = spend.reduce((sum, entry) => sum + entry.runs, 0);
  if (dbus > 0 && usd > 0)
    return {
      ...evidence,
      serverlessPrice: {
        usdPerDbu: usd / dbus,
        source: `what the workspace's serverless job runs were billed over the last 30 days (${runs} run${runs === 1 ? '' : 's'}, system.billing.usage at list prices)`,
      },
    };
  const { cloud, planType } = await sources.workspace(workspaceId);
  const listed = await billing.listPrice(cloud ?? 'aws', (planType ?? 'Premium').split(' ')[0] ?? 'Premium');
  return listed
    ? {
        ...evidence,
        serverlessPrice: {
          usdPerDbu: listed.usdPerDbu,
          source: `the list price of ${listed.sku} (system.billing.list_prices)`,
        },
      }
    : {
        ...evidence,
        serverlessPriceMissing: `system.billing.list_prices has no ${planType ?? 'Premium'} serverless jobs SKU for ${cloud ?? 'aws'}`,
      };
}
