import { isAppError } from '@setpoint/foundation/errors';
import type { CostModel } from '../../../cost/cost-model.js';
import { defaultRegions } from '../../../pricing/regions.js';
import type { Run } from '../api/schema.js';
import { computeTypeOf, planOf } from '../cluster-shape/billing.js';
import { clusterTraits, shapeOfCluster } from '../cluster-shape/cluster-shape.js';
import { costSpecOf } from '../cluster-shape/cost-spec.js';
import type { ConnectWorkspace } from '../connection/workspace-connection.js';
import { classifyJobCompute, jobName } from '../jobs/job-clusters.js';
import type { ServerlessBillingReader } from '../serverless/serverless-billing-reader.js';
import type { DatabricksRepository } from '../store/databricks-repository.js';
import { serverlessSpendByJob } from './serverless-spend.js';

const dayMs = 86_400_000;

export interface DiscoveredJob {
  jobId: string;
  name: string;
  compute: 'job_cluster' | 'all_purpose' | 'serverless' | 'mixed';
  photon: boolean;
  autoscale: boolean;
  spot: boolean;
  runSubmit: boolean;
  imported: boolean;
  runsInWindow: number;
  coreHoursInWindow: number;
  /** Estimated spend per 30 days at list prices, or null with the reason. */
  monthlyCostUsd: number | null;
  costNote: string | null;
  /** Typical saving of a tuned cluster, applied to the monthly cost (shown as an estimate). */
  estimatedMonthlySavingsUsd: number | null;
}

export interface DiscoverResult {
  windowDays: number;
  jobs: DiscoveredJob[];
  findings: { id: string; title: string; jobIds: string[]; detail: string }[];
  timeline: { day: string; jobs: number; coreHours: number }[];
}

/** Share of spend a first recommendation typically saves; shown as an estimate, never as a promise. */
const typicalSavingShare = 0.3;

/**
 * A whole workspace at a glance: every job, how its compute is set up, what it costs per month at
 * list prices, and which jobs are worth optimizing first.
 */
export function createDiscovery(deps: {
  connect: ConnectWorkspace;
  store: DatabricksRepository;
  costModel: CostModel;
  /** The workspace's serverless usage (system tables), when it has a SQL warehouse for them. */
  serverlessBilling: (workspaceId: string) => Promise<ServerlessBillingReader | undefined>;
  now?: () => number;
}) {
  const now = deps.now ?? Date.now;

  return async function discover(workspaceId: string, windowDays = 30): Promise<DiscoverResult> {
    const { client, workspace } = await deps.connect(workspaceId);
    const cloud = workspace.cloud === 'azure' ? 'azure' : 'aws';
    const billing = {
      region: workspace.region ?? defaultRegions[cloud],
      plan: planOf(workspace.planType),
      compute: computeTypeOf(null),
    };
    const since = now() - windowDays * dayMs;
    const imported = new Set((await deps.store.onboardedJobs(workspaceId)).map((row) => row.job_id));
    const runsByJob = new Map<string, Run[]>();
    const submitRuns = new Map<string, Run[]>();
    for await (const run of client.listRuns({ startTimeFrom: since, completedOnly: true })) {
      if (run.job_id && run.run_type !== 'SUBMIT_RUN')
        runsByJob.set(run.job_id, [...(runsByJob.get(run.job_id) ?? []), run]);
      else
        submitRuns.set(run.run_name ?? 'unnamed', [
          ...(submitRuns.get(run.run_name ?? 'unnamed') ?? []),
          run,
        ]);
    }
    const nodeCores = new Map<string, number>();
    try {
      for (const nodeType of await client.listNodeTypes())
        nodeCores.set(nodeType.node_type_id, nodeType.num_cores);
    } catch {
      // core-hours are then estimated without node sizes
    }
    const serverlessSpend = await serverlessSpendByJob(await deps.serverlessBilling(workspaceId), since);
    const jobs: DiscoveredJob[] = [];
    const daily = new Map<string, { jobs: Set<string>; coreHours: number }>();
    for await (const job of client.listJobs()) {
      const compute = classifyJobCompute(job.settings);
      const kinds = new Set(
        compute.flatMap((entry) =>
          entry.kind === 'no_compute' ? [] : [entry.kind === 'manageable' ? 'job_cluster' : entry.kind],
        ),
      );
      const specs = compute.flatMap((entry) => (entry.kind === 'manageable' ? [entry.spec] : []));
      const traits = specs.map((spec) => clusterTraits(spec, cloud));
      const runs = runsByJob.get(job.job_id) ?? [];
      let monthly = 0;
      let costNote: string | null = null;
      let coreHours = 0;
      for (const run of runs) {
        const hours = Math.max(0, run.end_time - run.start_time) / 3_600_000;
        for (const spec of specs) {
          const workers = spec.num_workers ?? spec.autoscale?.max_workers ?? 0;
          const cores = nodeCores.get(spec.node_type_id ?? '') ?? 0;
          coreHours += hours * cores * (workers + 1);
          try {
            const costSpec = costSpecOf(shapeOfCluster(spec, cloud), billing);
            monthly += deps.costModel.rateCluster(costSpec).usdPerHour(workers).expected * hours;
          } catch (error) {
            costNote = isAppError(error) ? error.message : String(error);
          }
        }
        const day = new Date(run.start_time).toISOString().slice(0, 10);
        const entry = daily.get(day) ?? { jobs: new Set<string>(), coreHours: 0 };
        entry.jobs.add(job.job_id);
        entry.coreHours += specs.reduce(
          (sum, spec) =>
            sum +
            hours *
              (nodeCores.get(spec.node_type_id ?? '') ?? 0) *
              ((spec.num_workers ?? spec.autoscale?.max_workers ?? 0) + 1),
          0,
        );
        daily.set(day, entry);
      }
      if (kinds.has('serverless')) {
        const serverless = serverlessSpend.of(job.job_id);
        if (serverless.usd === null) costNote = serverless.note;
        else monthly += serverless.usd;
      }
      const monthlyCostUsd = costNote ? null : (monthly * 30) / windowDays;
      jobs.push({
        jobId: job.job_id,
        name: jobName(job),
        compute: kinds.size === 1 ? ([...kinds][0] as DiscoveredJob['compute']) : 'mixed',
        photon: traits.some((trait) => trait.photon),
        autoscale: traits.some((trait) => trait.autoscale),
        spot: traits.some((trait) => trait.spot),
        runSubmit: false,
        imported: imported.has(job.job_id),
        runsInWindow: runs.length,
        coreHoursInWindow: coreHours,
        monthlyCostUsd,
        costNote,
        estimatedMonthlySavingsUsd:
          monthlyCostUsd === null || !kinds.has('job_cluster') ? null : monthlyCostUsd * typicalSavingShare,
      });
    }
    for (const [name, runs] of submitRuns) {
      jobs.push({
        jobId: `run-submit:${name}`,
        name,
        compute: 'job_cluster',
        photon: false,
        autoscale: false,
        spot: false,
        runSubmit: true,
        imported: false,
        runsInWindow: runs.length,
        coreHoursInWindow: 0,
        monthlyCostUsd: null,
        costNote: 'one-time runs/submit runs: optimize them through the Airflow hook or the API',
        estimatedMonthlySavingsUsd: null,
      });
    }
    const pick = (predicate: (job: DiscoveredJob) => boolean) =>
      jobs.filter(predicate).map((job) => job.jobId);
    const top = [...jobs]
      .filter((job) => job.estimatedMonthlySavingsUsd !== null && !job.imported)
      .sort((a, b) => (b.estimatedMonthlySavingsUsd ?? 0) - (a.estimatedMonthlySavingsUsd ?? 0))
      .slice(0, 10);
    return {
      windowDays,
      jobs,
      findings: [
        {
          id: 'top-savings',
          title: 'Top jobs to optimize',
          jobIds: top.map((job) => job.jobId),
          detail: `largest estimated monthly savings among ${jobs.length} jobs`,
        },
        {
          id: 'photon',
          title: 'Photon jobs',
          jobIds: pick((job) => job.photon),
          detail: 'Photon doubles DBU rates; check each is fast enough to pay for it',
        },
        {
          id: 'autoscaling',
          title: 'Autoscaling jobs',
          jobIds: pick((job) => job.autoscale),
          detail: 'autoscaling often pays for idle ramps; a tuned fixed size can be cheaper',
        },
        {
          id: 'all-purpose',
          title: 'Jobs on all-purpose compute',
          jobIds: pick((job) => job.compute === 'all_purpose' || job.compute === 'mixed'),
          detail: 'all-purpose DBUs cost more than jobs compute',
        },
        {
          id: 'serverless',
          title: 'Jobs on serverless compute',
          jobIds: pick((job) => job.compute === 'serverless'),
          detail:
            'costed as billed in system.billing.usage; Setpoint monitors them (Databricks sizes the compute)',
        },
        {
          id: 'run-submit',
          title: 'One-time run-submit jobs',
          jobIds: pick((job) => job.runSubmit),
          detail: 'grouped by run name',
        },
      ],
      timeline: [...daily.entries()]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([day, entry]) => ({ day, jobs: entry.jobs.size, coreHours: entry.coreHours })),
    };
  };
}
