import { randomBytes } from 'node:crypto';
import type { ProjectSettings } from '@setpoint/api-contract';
import { ValidationError } from '@setpoint/foundation/errors';
import type { ProjectService } from '../../../service/projects/project-service.js';
import type { WorkspaceService } from '../../../service/workspaces/workspace-service.js';
import type { ConnectWorkspace } from '../connection/workspace-connection.js';
import {
  classifyJobCompute,
  clusterRefKey,
  describeClusterRef,
  findClusterSpec,
  jobName,
} from '../jobs/job-clusters.js';
import { planOnboarding } from '../jobs/onboarding.js';
import { performanceTargetOf, serverlessProjectKey } from '../serverless/serverless-tasks.js';
import type { DatabricksRepository } from '../store/databricks-repository.js';

export interface ImportOptions {
  jobIds: string[];
  settings?: Partial<ProjectSettings>;
  /** Where clusters without log delivery will send their logs (default: the workspace's). */
  logDestination?: string;
}

export interface ImportedJob {
  jobId: string;
  name: string;
  projects: { id: string; clusterKey: string }[];
  skipped: { what: string; reason: string }[];
}

export interface OnboardingDependencies {
  connect: ConnectWorkspace;
  store: DatabricksRepository;
  projects: Pick<ProjectService, 'create' | 'list' | 'update'>;
  workspaces: Pick<WorkspaceService, 'get' | 'update' | 'credentials'>;
  /** Base URL Databricks can reach this server at, for the webhook destination. */
  publicUrl: () => string;
  /** The cluster as imported: the first entry of the project's apply history. */
  recordBaseline: (input: {
    projectId: string;
    configuration: Record<string, unknown>;
    actor: string;
    reason: string;
  }) => Promise<unknown>;
}

export function webhookUrl(publicUrl: string, workspaceId: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/api/v1/webhooks/databricks/${encodeURIComponent(workspaceId)}`;
}

/**
 * Importing a job wires it for collection (notification destination, log delivery, project tags)
 * with one jobs/update, and keeps the snapshot that `detach` writes back to undo it exactly.
 */
export function createOnboardingService(deps: OnboardingDependencies) {
  async function ensureDestination(workspaceId: string): Promise<string> {
    const link = await deps.store.workspaceLink(workspaceId);
    if (link?.destination_id) return link.destination_id;
    const { client } = await deps.connect(workspaceId);
    let credentials = (await deps.workspaces.credentials(workspaceId)).webhookCredentials;
    if (!credentials?.username || !credentials.password) {
      credentials = { username: `setpoint-${workspaceId}`, password: randomBytes(24).toString('base64url') };
      await deps.workspaces.update(
        workspaceId,
        { webhookCredentials: credentials },
        { actor: 'setpoint', role: 'admin' },
      );
    }
    const destination = await client.createWebhookDestination({
      displayName: `Setpoint (${workspaceId})`,
      url: webhookUrl(deps.publicUrl(), workspaceId),
      username: credentials.username ?? '',
      password: credentials.password ?? '',
    });
    await deps.store.saveWorkspaceLink(workspaceId, { destinationId: destination.id });
    return destination.id;
  }

  async function importJobs(
    workspaceId: string,
    options: ImportOptions,
    actor: string,
  ): Promise<ImportedJob[]> {
    const { client } = await deps.connect(workspaceId);
    const link = await deps.store.workspaceLink(workspaceId);
    // a workspace read through system tables and given no log destination stays agentless
    const logDestination =
      options.logDestination ??
      link?.log_destination ??
      (link?.sql_warehouse_id ? undefined : 'dbfs:/cluster-logs/setpoint');
    const results: ImportedJob[] = [];
    for (const jobId of options.jobIds) {
      if (await deps.store.onboardedJob(workspaceId, jobId)) {
        throw new ValidationError(
          'JOB_ALREADY_IMPORTED',
          `job ${jobId} is already imported; detach it first to import it again`,
        );
      }
      const job = await client.getJob(jobId);
      const compute = classifyJobCompute(job.settings);
      const manageable = compute.filter((entry) => entry.kind === 'manageable');
      const serverlessTasks = compute.filter((entry) => entry.kind === 'serverless');
      // serverless compute is billed only in system tables: without a warehouse its cost could not be known
      const serverlessReadable = Boolean(link?.sql_warehouse_id);
      const skipped = compute.flatMap((entry) => {
        if (entry.kind === 'all_purpose' || entry.kind === 'no_compute')
          return [{ what: `task "${entry.taskKey}"`, reason: entry.reason }];
        if (entry.kind === 'serverless' && !serverlessReadable)
          return [
            {
              what: `task "${entry.taskKey}"`,
              reason:
                'runs on serverless compute, billed only in system.billing.usage: give the workspace a SQL warehouse (workspaces check --sql-warehouse-id) and import the job again',
            },
          ];
        return [];
      });
      const name = jobName(job);
      const withServerless = serverlessTasks.length > 0 && serverlessReadable;
      if (manageable.length === 0 && !withServerless) {
        results.push({ jobId, name, projects: [], skipped });
        continue;
      }
      const destinationId = await ensureDestination(workspaceId);
      // one project for all the job's serverless tasks: their performance mode is the job's
      const serverlessProject = withServerless
        ? await deps.projects.create(
            {
              name: manageable.length > 0 ? `${name} · serverless tasks` : name,
              workspaceId,
              jobId,
              clusterKey: serverlessProjectKey,
              settings: options.settings,
            },
            actor,
          )
        : undefined;
      const created = [];
      for (const entry of manageable) {
        const project = await deps.projects.create(
          {
            name: manageable.length > 1 ? `${name} · ${describeClusterRef(entry.ref)}` : name,
            workspaceId,
            jobId,
            clusterKey: clusterRefKey(entry.ref),
            settings: options.settings,
          },
          actor,
        );
        created.push({ ref: entry.ref, projectId: project.id });
      }
      const change = planOnboarding(job.settings, {
        destinationId,
        logDestination,
        projects: created,
        otherProjectIds: serverlessProject ? [serverlessProject.id] : [],
      });
      await client.updateJob(jobId, change.newSettings);
      await deps.store.recordOnboarding(workspaceId, jobId, change.restore);
      if (serverlessProject)
        await deps.recordBaseline({
          projectId: serverlessProject.id,
          configuration: { performance_target: performanceTargetOf(job.settings.performance_target) },
          actor,
          reason: 'performance mode at import',
        });
      for (const { ref, projectId } of created) {
        const spec = findClusterSpec({ ...job.settings, ...change.newSettings }, ref);
        if (spec) {
          await deps.recordBaseline({
            projectId,
            configuration: spec,
            actor,
            reason: 'configuration at import',
          });
        }
      }
      results.push({
        jobId,
        name,
        projects: [
          ...created.map((entry) => ({ id: entry.projectId, clusterKey: clusterRefKey(entry.ref) })),
          ...(serverlessProject ? [{ id: serverlessProject.id, clusterKey: serverlessProjectKey }] : []),
        ],
        skipped,
      });
    }
    return results;
  }

  /** Writes back every field import changed; the projects stay, with their history, unlinked from the job. */
  async function detach(
    workspaceId: string,
    jobId: string,
    actor: string,
  ): Promise<{ jobId: string; projects: string[] }> {
    await deps.workspaces.get(workspaceId);
    const onboarded = await deps.store.onboardedJob(workspaceId, jobId);
    if (!onboarded)
      throw new ValidationError(
        'JOB_NOT_IMPORTED',
        `job ${jobId} is not imported in workspace ${workspaceId}`,
      );
    const { client } = await deps.connect(workspaceId);
    await client.updateJob(jobId, onboarded.restore.newSettings, onboarded.restore.fieldsToRemove);
    await deps.store.forgetOnboarding(workspaceId, jobId);
    const linked = await deps.projects.list({ workspaceId, limit: 500, offset: 0, sort: 'name' });
    const detached = linked.items.filter((project) => project.jobId === jobId);
    for (const project of detached) {
      await deps.projects.update(project.id, { settings: { autoApply: false } }, actor);
    }
    return { jobId, projects: detached.map((project) => project.id) };
  }

  return { ensureDestination, importJobs, detach };
}

export type OnboardingService = ReturnType<typeof createOnboardingService>;
