import { isAppError } from '@setpoint/foundation/errors';
import { countOf } from '@setpoint/foundation/words';
import type { CostModel } from '../../../cost/cost-model.js';
import { defaultRegions } from '../../../pricing/regions.js';
import type { ProjectService } from '../../../service/projects/project-service.js';
import type { RecommendationService } from '../../../service/recommendations/recommendation-service.js';
import type { NewClusterSpec, Run } from '../api/schema.js';
import { computeTypeOf, planOf } from '../cluster-shape/billing.js';
import { clusterTraits, shapeOfCluster } from '../cluster-shape/cluster-shape.js';
import { costSpecOf } from '../cluster-shape/cost-spec.js';
import type { ConnectWorkspace } from '../connection/workspace-connection.js';
import { classifyJobCompute, clusterRefKey, jobName } from '../jobs/job-clusters.js';
import type { ServerlessBillingReader } from '../serverless/serverless-billing-reader.js';
import type { DatabricksRepository } from '../store/databricks-repository.js';
import type { EvidenceContext } from './job-evidence.js';
import { instancePools, withPoolNodeTypes } from './pool-node-types.js';
import {
  type ConfidentChoiceOf,
  estimateFromEvidence,
  type ImportedCluster,
  notEstimated,
  type SavingEstimate,
  savingLeft,
} from './saving-estimate.js';
import { serverlessSpendByJob, windowServerlessUsd } from './serverless-spend.js';

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
  /** Estimated spend per 30 days at list prices, or null with the reason in `costNote`. */
  monthlyCostUsd: number | null;
  /** Why there is no monthly cost, or what it leaves out; null when it is the whole job's. */
  costNote: string | null;
  /** What the job could save a month (`saving-estimate.ts`); null: not estimated, `savingNote` says why. */
  estimatedMonthlySavingsUsd: number | null;
  /** What the estimate rests on; null without one. */
  savingBasis: string | null;
  /** Why there is no estimate, or why it is 0; null when there is a saving. */
  savingNote: string | null;
}

export interface DiscoverResult {
  windowDays: number;
  jobs: DiscoveredJob[];
  findings: { id: string; title: string; jobIds: string[]; detail: string }[];
  timeline: { day: string; jobs: number; coreHours: number }[];
}

/**
 * The jobs a Discover request estimates from their runs, costliest first: each estimate is an optimizer
 * pass (a fraction of a second to seconds on a busy machine), so a workspace of hundreds of jobs is
 * answered in bounded time; the rest say how to get theirs.
 */
export const estimatedJobsPerRequest = 25;

/** Estimates kept between requests (the oldest go first). */
const maxRememberedEstimates = 2000;

/** Why a job's compute cannot be tuned by Setpoint, by kind. */
const untunedCompute = {
  serverless: 'not estimated: serverless compute is sized by Databricks; Setpoint tunes job clusters only',
  all_purpose:
    'not estimated: it runs on an all-purpose cluster shared with other work; Setpoint tunes job clusters only',
  no_compute: 'not estimated: it runs no code on job compute',
} as const;

/** All-purpose clusters are shared with other work: a job's part of their cost is not priced. */
const allPurposeNote =
  'all-purpose cluster: its cost is shared with the other work on it, so it is not priced per job';

const messageOf = (error: unknown) =>
  isAppError(error) || error instanceof Error ? error.message : String(error);

/**
 * A whole workspace at a glance: every job, how its compute is set up, what it costs per month at
 * list prices, what it could save with its basis (or why it is not estimated), and which jobs are worth
 * optimizing first.
 */
export function createDiscovery(deps: {
  connect: ConnectWorkspace;
  store: DatabricksRepository;
  costModel: CostModel;
  projects: Pick<ProjectService, 'list'>;
  recommendations: Pick<RecommendationService, 'latest'>;
  /** Cores of a node type (the price catalog's instance table), for the estimate's run profiles. */
  coresOf: (cloud: string, nodeType: string) => number | undefined;
  confidentChoice: ConfidentChoiceOf;
  /** The workspace's serverless usage (system tables), when it has a SQL warehouse for them. */
  serverlessBilling: (workspaceId: string) => Promise<ServerlessBillingReader | undefined>;
  now?: () => number;
}) {
  const now = deps.now ?? Date.now;
  /**
   * Estimates by job and its newest runs: an estimate changes only with new runs, and each is an optimizer
   * pass, so a page reloaded (or a second user) does not pay for them again.
   */
  const estimates = new Map<string, Promise<SavingEstimate>>();
  const estimateOnce = (key: string, estimate: () => Promise<SavingEstimate>) => {
    let found = estimates.get(key);
    if (!found) {
      found = estimate();
      estimates.set(key, found);
      if (estimates.size > maxRememberedEstimates) estimates.delete(estimates.keys().next().value as string);
    }
    return found;
  };

  /** The newest recommendation of each imported project of the workspace, by job and cluster. */
  async function importedClusters(workspaceId: string) {
    const byJob = new Map<string, Map<string, Omit<ImportedCluster, 'costPerRunUsd'>>>();
    const { items } = await deps.projects.list({ workspaceId, sort: 'name', limit: 500, offset: 0 });
    for (const project of items) {
      if (!project.jobId || !project.clusterKey) continue;
      const latest = await deps.recommendations.latest(project.id).catch(() => null);
      const decision = latest?.decision;
      const predicted = latest?.prediction?.costUsd?.mid;
      const clusters = byJob.get(project.jobId) ?? new Map();
      clusters.set(project.clusterKey, {
        project: project.name,
        latest:
          decision && predicted !== undefined
            ? {
                action: decision.action,
                predictedCostUsd: predicted,
                learning: decision.learning?.active ?? false,
              }
            : null,
      });
      byJob.set(project.jobId, clusters);
    }
    return byJob;
  }

  return async function discover(workspaceId: string, windowDays = 30): Promise<DiscoverResult> {
    const { client, workspace } = await deps.connect(workspaceId);
    const cloud = workspace.cloud === 'azure' ? 'azure' : 'aws';
    const billing = {
      region: workspace.region ?? defaultRegions[cloud],
      plan: planOf(workspace.planType),
      compute: computeTypeOf(null),
    };
    const context: EvidenceContext = {
      cloud,
      billing,
      coresOf: (nodeType) => deps.coresOf(cloud, nodeType),
      costModel: deps.costModel,
    };
    const pools = instancePools(client);
    const since = now() - windowDays * dayMs;
    const runsPerMonth = (runs: number) => (runs * 30) / windowDays;
    const imported = new Set((await deps.store.onboardedJobs(workspaceId)).map((row) => row.job_id));
    const importedByJob = await importedClusters(workspaceId);
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
    /** Jobs of one job cluster, not imported, with priced runs: estimated from evidence below, costliest first. */
    const pending: { job: DiscoveredJob; estimate: () => Promise<SavingEstimate> }[] = [];
    const daily = new Map<string, { jobs: Set<string>; coreHours: number }>();
    for await (const job of client.listJobs()) {
      const compute = classifyJobCompute(job.settings);
      const kinds = new Set(
        compute.flatMap((entry) =>
          entry.kind === 'no_compute' ? [] : [entry.kind === 'manageable' ? 'job_cluster' : entry.kind],
        ),
      );
      const runs = (runsByJob.get(job.job_id) ?? []).sort((a, b) => a.start_time - b.start_time);
      let costNote: string | null = null;
      const clusters: { key: string; spec: NewClusterSpec }[] = [];
      for (const entry of compute) {
        if (entry.kind !== 'manageable') continue;
        const key = clusterRefKey(entry.ref);
        try {
          clusters.push({ key, spec: await withPoolNodeTypes(entry.spec, pools) });
        } catch (error) {
          costNote = messageOf(error);
          clusters.push({ key, spec: entry.spec });
        }
      }
      const specs = clusters.map((cluster) => cluster.spec);
      const traits = specs.map((spec) => clusterTraits(spec, cloud));
      const clusterUsd = new Map<string, number>();
      let coreHours = 0;
      for (const run of runs) {
        const hours = Math.max(0, run.end_time - run.start_time) / 3_600_000;
        let runCoreHours = 0;
        for (const { key, spec } of clusters) {
          const workers = spec.num_workers ?? spec.autoscale?.max_workers ?? 0;
          runCoreHours += hours * (nodeCores.get(spec.node_type_id ?? '') ?? 0) * (workers + 1);
          try {
            const costSpec = costSpecOf(shapeOfCluster(spec, cloud), billing);
            const usd = deps.costModel.rateCluster(costSpec).usdPerHour(workers).expected * hours;
            clusterUsd.set(key, (clusterUsd.get(key) ?? 0) + usd);
          } catch (error) {
            costNote ??= messageOf(error);
          }
        }
        coreHours += runCoreHours;
        const day = new Date(run.start_time).toISOString().slice(0, 10);
        const entry = daily.get(day) ?? { jobs: new Set<string>(), coreHours: 0 };
        entry.jobs.add(job.job_id);
        entry.coreHours += runCoreHours;
        daily.set(day, entry);
      }
      const others = compute.flatMap((entry) => (entry.kind === 'manageable' ? [] : [entry.kind]));
      let windowUsd = [...clusterUsd.values()].reduce((sum, usd) => sum + usd, 0);
      // serverless tasks cost what system.billing.usage billed them; unknown (never $0) without the bill
      if (kinds.has('serverless')) {
        const serverless = serverlessSpend.of(job.job_id);
        if (serverless.usd === null) costNote ??= serverless.note;
        else windowUsd += windowServerlessUsd(serverless, runs.length);
      }
      const priced = clusters.length > 0 || kinds.has('serverless');
      const monthlyCostUsd = costNote || !priced ? null : (windowUsd * 30) / windowDays;
      if (kinds.has('all_purpose'))
        costNote ??= priced ? `all-purpose tasks not included; ${allPurposeNote}` : allPurposeNote;
      if (!costNote && runs.length === 0) costNote = `no run in the last ${windowDays} days`;
      const discovered: DiscoveredJob = {
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
        estimatedMonthlySavingsUsd: null,
        savingBasis: null,
        savingNote: null,
      };
      jobs.push(discovered);
      const settle = (estimate: SavingEstimate) => {
        discovered.estimatedMonthlySavingsUsd = estimate.monthlyUsd;
        discovered.savingBasis = estimate.basis;
        discovered.savingNote = estimate.note;
      };
      const untuned = others.find((kind) => kind !== 'no_compute') ?? others[0];
      if (clusters.length === 0)
        settle(notEstimated(untuned ? untunedCompute[untuned] : 'not estimated: no job cluster'));
      else if (runs.length === 0)
        settle(notEstimated(`not estimated: no run in the last ${windowDays} days to learn from`));
      else if (discovered.imported)
        settle(
          savingLeft(
            clusters.map(({ key }) => {
              const known = importedByJob.get(job.job_id)?.get(key);
              const usd = clusterUsd.get(key);
              return {
                project: known?.project ?? key,
                latest: known?.latest ?? null,
                costPerRunUsd: usd === undefined || costNote ? null : usd / runs.length,
              };
            }),
            runsPerMonth(runs.length),
          ),
        );
      else if (monthlyCostUsd === null) settle(notEstimated(`not estimated: ${costNote}`));
      else if (others.some((kind) => kind !== 'no_compute'))
        settle(
          notEstimated(
            "not estimated: its runs also use compute other than its job cluster, so their runtime is not the cluster's alone; import it to have the cluster estimated from its own event logs",
          ),
        );
      else if (clusters.length > 1)
        settle(
          notEstimated(
            `not estimated: its ${clusters.length} job clusters share each run's runtime; import it to have each estimated as its own project`,
          ),
        );
      else {
        const spec = specs[0]!;
        const newest = runs.at(-1);
        pending.push({
          job: discovered,
          estimate: () =>
            estimateOnce(
              `${workspaceId}:${job.job_id}:${runs.length}:${newest?.run_id}:${JSON.stringify(spec)}`,
              () =>
                estimateFromEvidence({
                  jobId: job.job_id,
                  name: discovered.name,
                  workspace,
                  evidence: runs.map((run) => ({ run, spec })),
                  runsPerMonth: runsPerMonth(runs.length),
                  context,
                  confidentChoice: deps.confidentChoice,
                }),
            ),
        });
      }
    }
    pending.sort((a, b) => (b.job.monthlyCostUsd ?? 0) - (a.job.monthlyCostUsd ?? 0));
    for (const [index, entry] of pending.entries()) {
      const estimate =
        index < estimatedJobsPerRequest
          ? await entry.estimate()
          : notEstimated(
              `not estimated: Discover estimates the ${estimatedJobsPerRequest} costliest jobs of a workspace from their runs; import this one for its recommendation`,
            );
      entry.job.estimatedMonthlySavingsUsd = estimate.monthlyUsd;
      entry.job.savingBasis = estimate.basis;
      entry.job.savingNote = estimate.note;
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
        savingBasis: null,
        savingNote: 'not estimated: one-time runs have no job cluster to tune between runs',
      });
    }
    const pick = (predicate: (job: DiscoveredJob) => boolean) =>
      jobs.filter(predicate).map((job) => job.jobId);
    const withSaving = jobs.filter((job) => (job.estimatedMonthlySavingsUsd ?? 0) > 0);
    const top = [...withSaving]
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
          detail:
            withSaving.length === 0
              ? `no job has an estimated saving yet, of ${jobs.length} jobs (each row says why)`
              : `largest estimated monthly savings, from each job's own runs: ${withSaving.length} of ${countOf(jobs.length, 'job')} ${withSaving.length === 1 ? 'has' : 'have'} a saving${top.length < withSaving.length ? `, the top ${top.length} shown` : ''}`,
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
