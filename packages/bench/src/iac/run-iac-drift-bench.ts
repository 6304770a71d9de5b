import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { countOf } from '@setpoint/foundation/words';
import { type ClosedLoop, startClosedLoop } from 'setpoint/demo/closed-loop-driver';
import type { EmrDemoJob } from 'setpoint/demo/emr-workloads';
import type { NewClusterSpec } from 'setpoint/platforms/databricks/api/schema';
import { findClusterSpec, parseClusterRefKey } from 'setpoint/platforms/databricks/jobs/job-clusters';
import { diffManagedFields } from 'setpoint/platforms/databricks/jobs/managed-fields';
import type { CodeProposal } from 'setpoint/service/code/code-records';
import {
  bundleOfJob,
  bundleRoot,
  createRepository,
  type EmrGroup,
  emrClusterOfTerraform,
  filesAt,
  mergeBranch,
  settingsOfBundle,
  settingsOfTerraform,
  terraformOfEmrCluster,
  terraformOfJob,
} from './job-code.js';
import { bytesOutsideManaged } from './managed-lines.js';

export type DriftFormat = 'terraform' | 'bundle';

export interface IacDriftOptions {
  seed: number;
  /** Job Bank jobs and EMR workloads by name (default: all). */
  jobs?: string[];
  /** The EMR workloads (Terraform) too. */
  emr: boolean;
  formats: DriftFormat[];
  log?: (line: string) => void;
}

/** One job in one format: proposed, merged, deployed, read again. */
export interface IacDriftCase {
  job: string;
  platform: 'databricks' | 'emr';
  format: DriftFormat;
  recommendationId: string | null;
  /** How the proposal came: auto-apply, or a person's apply when auto-apply made none. */
  proposedBy: string | null;
  /** Lines the proposal changed, and the bytes of those outside the managed attributes (must be 0). */
  changedLines: number;
  bytesOutsideManaged: number;
  /** After the deploy: the job's (or launched cluster's) managed fields equal the file's. */
  clusterMatchesFile: boolean;
  /** The next run after the deploy ran the file's cluster. */
  nextRunMatchesFile: boolean;
  /** The recommendation proposed again against the merged code: an empty diff (nothing drifted). */
  diffAfterDeployEmpty: boolean;
  /** Setpoint saw the deployed change: the proposal `applied` and one entry in the apply history. */
  recordedApplied: boolean;
  /** Which managed fields of the deployed job differ from the file's, when any do. */
  mismatch: string | null;
  /** Why the case could not be run through; null when it was. */
  problem: string | null;
}

export interface IacDriftResult {
  seed: number;
  cases: IacDriftCase[];
  /** Cases that held on every count. */
  held: number;
  bytesOutsideManaged: number;
  seconds: number;
}

type LoopJob = ClosedLoop['jobs'][number];

/** Runs of a job whose recommendation keeps its cluster, before the case is reported as having nothing to propose. */
const keepRetries = 3;

const held = (entry: IacDriftCase) =>
  entry.problem === null &&
  entry.bytesOutsideManaged === 0 &&
  entry.clusterMatchesFile &&
  entry.nextRunMatchesFile &&
  entry.diffAfterDeployEmpty &&
  entry.recordedApplied;

/**
 * The no-drift measurement: every Job Bank job written as Terraform and as a bundle, every EMR workload as
 * Terraform, each in a real bare git repository linked to its project. A run gives a recommendation, which
 * auto-apply proposes there (a person's apply when it made none); the branch is merged, the file deployed
 * to the emulator as `terraform apply` / `bundle deploy` would (EMR: a cluster launched from the file),
 * and the job is read again and run once more.
 */
export async function runIacDriftBench(options: IacDriftOptions): Promise<IacDriftResult> {
  const started = Date.now();
  const log = options.log ?? (() => {});
  const root = mkdtempSync(path.join(tmpdir(), 'setpoint-iac-drift-'));
  const loop = await startClosedLoop({
    port: 0,
    dataDir: path.join(root, 'data'),
    seed: options.seed,
    emr: options.emr,
    env: { SETPOINT_LOG_LEVEL: 'error' },
    // The bench measures where a change lands, not how it was found: the standard search proposes a change
    // within a few runs on every job, where safe learning may keep a cluster for longer than the bench runs.
    projectSettings: { learningMissBudget: 3 },
  });
  const services = loop.server.services;
  const cases: IacDriftCase[] = [];
  try {
    const databricksJobs = loop.jobs.filter(
      (job) => job.platform === 'databricks' && (!options.jobs || options.jobs.includes(job.name)),
    );
    const emrJobs = loop.jobs.filter(
      (job): job is EmrDemoJob =>
        job.platform === 'emr' && (!options.jobs || options.jobs.includes(job.name)),
    );
    let repositories = 0;

    async function jobSettings(jobId: string): Promise<Record<string, unknown>> {
      const response = await fetch(`${loop.emulator.url}/api/2.2/jobs/get?job_id=${jobId}`, {
        headers: { authorization: `Bearer ${loop.emulator.token}` },
      });
      return ((await response.json()) as { settings: Record<string, unknown> }).settings;
    }

    async function deployJob(jobId: string, settings: Record<string, unknown>): Promise<void> {
      const response = await fetch(`${loop.emulator.url}/api/2.2/jobs/reset`, {
        method: 'POST',
        headers: { authorization: `Bearer ${loop.emulator.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ job_id: Number(jobId), new_settings: settings }),
      });
      if (!response.ok)
        throw new Error(`jobs/reset of ${jobId}: ${response.status} ${await response.text()}`);
    }

    async function waitForQueue(): Promise<void> {
      await eventually(
        async () => ((await services.queue.depth()).every((entry) => entry.count === 0) ? true : undefined),
        'the queue to drain',
      );
    }

    /** Launches the EMR workload from its Terraform (`terraform apply`) and waits until its run is digested. */
    async function launchFromFile(job: EmrDemoJob, cluster: { name: string; groups: EmrGroup[] }) {
      const emr = loop.emr;
      if (!emr) throw new Error('the loop has no EMR account');
      const { clusterId, stepId } = await emr.launch(job, undefined, cluster);
      await emr.collect(job, clusterId, stepId);
      const projectId = job.projectIds[0] as string;
      await eventually(async () => {
        const runs = await services.runs.list(projectId, { limit: 5, offset: 0 });
        const run = runs.items.find((item) => item.externalRunId.includes(clusterId));
        return run && (run.pipelineState === 'DONE' || run.pipelineState === 'FAILED') ? run : undefined;
      }, `the run of cluster ${clusterId}`);
      await waitForQueue();
      return clusterId;
    }

    /**
     * The proposal a run's recommendation opened, or a person's apply of the latest recommendation; a
     * recommendation that keeps the cluster has nothing to propose, so the job runs again (at most
     * `keepRetries` times) until one changes it.
     */
    async function proposalOf(
      projectId: string,
      runAgain: () => Promise<void>,
    ): Promise<{ proposal: CodeProposal | null; note: string }> {
      for (let runs = 0; ; runs += 1) {
        // the code linked now: a proposal left open in the other format's repository is not this case's
        const repository = (await services.sources.effective(projectId))?.repository;
        const open = (await services.proposals.list(projectId)).find(
          (entry) => entry.state === 'open' && entry.repository === repository,
        );
        const after = runs === 0 ? '' : ` after ${countOf(runs, 'more run', 'more runs')}`;
        if (open) return { proposal: open, note: `auto-apply${after}` };
        const latest = await services.recommendations.latest(projectId);
        if (latest.state !== 'SUCCESS')
          return { proposal: null, note: `latest recommendation ${latest.state}` };
        if (latest.decision?.action === 'keep') {
          if (runs < keepRetries) {
            await runAgain();
            continue;
          }
          return { proposal: null, note: `every recommendation kept the cluster${after}` };
        }
        const { handedOff } = await services.applies.request(projectId, latest.id, 'bench');
        if (!handedOff?.proposalId)
          return { proposal: null, note: handedOff?.message ?? 'written through the API' };
        return {
          proposal: await services.proposals.get(projectId, handedOff.proposalId),
          note: `apply${after}`,
        };
      }
    }

    async function recorded(projectId: string, proposal: CodeProposal): Promise<boolean> {
      await services.proposals.refresh(projectId);
      const after = await services.proposals.get(projectId, proposal.id);
      const history = await services.applies.history(projectId);
      return (
        after.state === 'applied' &&
        history.filter(
          (entry) =>
            entry.recommendationId === proposal.recommendationId && entry.createdAt >= proposal.createdAt,
        ).length === 1
      );
    }

    async function diffAfter(projectId: string, recommendationId: string): Promise<boolean> {
      return (await services.proposals.diff(projectId, recommendationId)).diff === '';
    }

    /**
     * One case: the proposal (auto-apply's, or a person's apply), the lines it changed, the merge, the
     * deploy and its read-back, the apply history, the recommendation's diff against the merged code, and
     * the next run.
     */
    async function throughCase(
      entry: IacDriftCase,
      projectId: string,
      work: string,
      steps: {
        runAgain(): Promise<void>;
        deploy(entry: IacDriftCase): Promise<void>;
        nextRun(entry: IacDriftCase): Promise<void>;
      },
    ): Promise<void> {
      cases.push(entry);
      try {
        const { proposal, note } = await proposalOf(projectId, steps.runAgain);
        if (!proposal) {
          entry.problem = `nothing proposed: ${note}`;
          return;
        }
        entry.proposedBy = note;
        entry.recommendationId = proposal.recommendationId;
        const counted = bytesOutsideManaged(proposal.diff, entry.platform);
        entry.changedLines = counted.lines;
        entry.bytesOutsideManaged = counted.outside;
        mergeBranch(work, proposal.branch);
        await steps.deploy(entry);
        entry.recordedApplied = await recorded(projectId, proposal);
        entry.diffAfterDeployEmpty = await diffAfter(projectId, proposal.recommendationId);
        await steps.nextRun(entry);
      } catch (error) {
        entry.problem = error instanceof Error ? error.message : String(error);
      } finally {
        log(line(entry));
      }
    }

    for (const format of options.formats) {
      const pass = databricksJobs.map((job) => ({ job, format }));
      const emrPass = format === 'terraform' ? emrJobs : [];
      log(
        `${format}: ${countOf(pass.length, 'Databricks job')}${emrPass.length ? `, ${countOf(emrPass.length, 'EMR workload')}` : ''}`,
      );

      // the team's code, as it is deployed today, linked to each project
      const databricksCode = new Map<
        LoopJob,
        {
          work: string;
          read(files: Record<string, string>): Promise<Record<string, unknown>>;
          file: string[];
        }
      >();
      // a job with two clusters is two projects, both in the one file
      const link = (job: LoopJob, source: { repository: string; path: string; target?: string }) =>
        Promise.all(job.projectIds.map((projectId) => services.sources.link(projectId, source, 'bench')));
      for (const { job } of pass) {
        const settings = await jobSettings(job.jobId);
        repositories += 1;
        if (format === 'terraform') {
          const generated = terraformOfJob(settings, {
            comment: `${job.name}: owned by the data platform team.`,
          });
          const { remote, work } = createRepository(root, `repos/${repositories}.git`, {
            'jobs/job.tf': generated.text,
          });
          await link(job, { repository: remote, path: 'jobs/job.tf' });
          databricksCode.set(job, {
            work,
            file: ['jobs/job.tf'],
            read: (files) => settingsOfTerraform(files, generated.resourceName),
          });
        } else {
          const bundle = bundleOfJob('job', settings);
          const files = {
            'databricks.yml': bundleRoot(`bundle-${repositories}`, bundle.variables, 'prod'),
            'resources/job.yml': bundle.resource,
          };
          const { remote, work } = createRepository(root, `repos/${repositories}.git`, files);
          // the team deploys its bundle: the job is then BUNDLE-deployed and locked
          await deployJob(job.jobId, settingsOfBundle(files, 'job', 'prod'));
          await link(job, { repository: remote, path: 'databricks.yml', target: 'prod' });
          databricksCode.set(job, {
            work,
            file: Object.keys(files),
            read: async (merged) => settingsOfBundle(merged, 'job', 'prod'),
          });
        }
      }
      const emrCode = new Map<EmrDemoJob, { work: string; resourceName: string }>();
      for (const job of emrPass) {
        const projectId = job.projectIds[0] as string;
        // the cluster it was launched with, once the import's first run is collected
        const groups = await eventually(async () => {
          const runs = (await services.runs.list(projectId, { limit: 5, offset: 0 })).items;
          const found = runs
            .map((run) => launchedGroups(run.clusterConfig))
            .find((shape) => shape.length > 0);
          return found;
        }, `the first run of ${job.name}`);
        repositories += 1;
        const generated = terraformOfEmrCluster(job.name, groups, {
          comment: `${job.name}: launched nightly by the scheduler`,
          tags: { 'setpoint:project-id': job.name },
        });
        const { remote, work } = createRepository(root, `repos/${repositories}.git`, {
          'emr/cluster.tf': generated.text,
        });
        await services.sources.link(projectId, { repository: remote, path: 'emr/cluster.tf' }, 'bench');
        emrCode.set(job, { work, resourceName: generated.resourceName });
      }

      // one run each: its recommendation is proposed by auto-apply
      await Promise.all(pass.map(({ job }) => loop.runJob(job)));
      for (const job of emrPass) {
        const code = emrCode.get(job)!;
        await launchFromFile(
          job,
          await emrClusterOfTerraform(filesAt(code.work, ['emr/cluster.tf']), code.resourceName),
        );
      }
      await waitForQueue();

      for (const { job } of pass)
        for (const [index, projectId] of job.projectIds.entries()) {
          const code = databricksCode.get(job)!;
          let fileSpec: NewClusterSpec | undefined;
          const name = job.projectIds.length > 1 ? `${job.name} (cluster ${index + 1})` : job.name;
          await throughCase(blankCase(name, 'databricks', format), projectId, code.work, {
            runAgain: () => loop.runJob(job),
            async deploy(entry) {
              const fileSettings = await code.read(filesAt(code.work, code.file));
              await deployJob(job.jobId, fileSettings);
              const ref = parseClusterRefKey((await services.projects.get(projectId)).clusterKey ?? '');
              if (!ref) throw new Error(`project ${projectId} names no job cluster`);
              fileSpec = findClusterSpec(fileSettings as never, ref) as NewClusterSpec;
              const jobSpec = findClusterSpec((await jobSettings(job.jobId)) as never, ref) as NewClusterSpec;
              const differences = diffManagedFields(jobSpec, fileSpec);
              entry.clusterMatchesFile = differences.length === 0;
              if (differences.length > 0)
                entry.mismatch = differences
                  .map(
                    (difference) =>
                      `${difference.field}: job ${JSON.stringify(difference.before)}, file ${JSON.stringify(difference.after)}`,
                  )
                  .join('; ');
            },
            async nextRun(entry) {
              await loop.runJob(job);
              const ran = (await services.runs.list(projectId, { limit: 1, offset: 0 })).items[0];
              entry.nextRunMatchesFile =
                fileSpec !== undefined &&
                ran?.clusterConfig !== undefined &&
                diffManagedFields(ran.clusterConfig as NewClusterSpec, fileSpec).length === 0;
            },
          });
        }

      for (const job of emrPass) {
        const projectId = job.projectIds[0] as string;
        const code = emrCode.get(job)!;
        const fromFile = async () =>
          emrClusterOfTerraform(filesAt(code.work, ['emr/cluster.tf']), code.resourceName);
        await throughCase(blankCase(job.name, 'emr', format), projectId, code.work, {
          runAgain: async () => void (await launchFromFile(job, await fromFile())),
          async deploy(entry) {
            const cluster = await emrClusterOfTerraform(
              filesAt(code.work, ['emr/cluster.tf']),
              code.resourceName,
            );
            // the deploy is the next launch: `terraform apply` of the cluster, which runs the step
            await launchFromFile(job, cluster);
            const ran = (await services.runs.list(projectId, { limit: 1, offset: 0 })).items[0]
              ?.clusterConfig;
            entry.clusterMatchesFile = emrShapeIs(ran, cluster.groups);
            entry.nextRunMatchesFile = entry.clusterMatchesFile;
          },
          async nextRun() {},
        });
      }
      for (const { job } of pass)
        for (const projectId of job.projectIds) await services.sources.unlink(projectId, 'bench');
      for (const job of emrPass) await services.sources.unlink(job.projectIds[0] as string, 'bench');
    }
  } finally {
    await loop.close();
    rmSync(root, { recursive: true, force: true });
  }
  return {
    seed: options.seed,
    cases,
    held: cases.filter(held).length,
    bytesOutsideManaged: cases.reduce((sum, entry) => sum + entry.bytesOutsideManaged, 0),
    seconds: (Date.now() - started) / 1000,
  };
}

function blankCase(job: string, platform: IacDriftCase['platform'], format: DriftFormat): IacDriftCase {
  return {
    job,
    platform,
    format,
    recommendationId: null,
    proposedBy: null,
    changedLines: 0,
    bytesOutsideManaged: 0,
    clusterMatchesFile: false,
    nextRunMatchesFile: false,
    diffAfterDeployEmpty: false,
    recordedApplied: false,
    mismatch: null,
    problem: null,
  };
}

/** The instance groups an EMR run's report says its cluster was launched with (none when it has no report). */
function launchedGroups(report: unknown): EmrGroup[] {
  const shape = (
    report as {
      shape?: { groups?: { role: EmrGroup['InstanceRole']; instanceType: string; count: number }[] };
    } | null
  )?.shape;
  return (shape?.groups ?? [])
    .filter((group) => group.count > 0)
    .map((group) => ({
      InstanceRole: group.role,
      InstanceType: group.instanceType,
      InstanceCount: group.count,
    }));
}

/** Whether a run's EMR report shows the file's groups: each role's instance type and count. */
function emrShapeIs(report: unknown, groups: EmrGroup[]): boolean {
  const launched = launchedGroups(report);
  if (launched.length === 0) return false;
  return (['MASTER', 'CORE', 'TASK'] as const).every((role) => {
    const of = (items: EmrGroup[]) =>
      items.filter((group) => group.InstanceRole === role && group.InstanceCount > 0);
    const count = (items: EmrGroup[]) => of(items).reduce((sum, group) => sum + group.InstanceCount, 0);
    const types = (items: EmrGroup[]) =>
      [...new Set(of(items).map((group) => group.InstanceType))].sort().join();
    return count(launched) === count(groups) && types(launched) === types(groups);
  });
}

/** Polls until `probe` answers (every 100 ms, at most ten minutes). */
async function eventually<T>(probe: () => Promise<T | undefined>, what: string): Promise<T> {
  const deadline = Date.now() + 600_000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export function line(entry: IacDriftCase): string {
  const yes = (value: boolean) => (value ? 'yes' : 'NO');
  return entry.problem
    ? `${entry.platform} ${entry.format} ${entry.job}: ${entry.problem}`
    : `${entry.platform} ${entry.format} ${entry.job}: ${countOf(entry.changedLines, 'line')} changed, ${countOf(entry.bytesOutsideManaged, 'byte')} outside managed attributes; cluster = file ${yes(entry.clusterMatchesFile)}, next run = file ${yes(entry.nextRunMatchesFile)}, diff after deploy empty ${yes(entry.diffAfterDeployEmpty)}, recorded applied ${yes(entry.recordedApplied)} (${entry.proposedBy})${entry.mismatch ? `; differs: ${entry.mismatch}` : ''}`;
}
