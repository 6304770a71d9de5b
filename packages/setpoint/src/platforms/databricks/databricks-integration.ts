import { createCostModel } from '../../cost/cost-model.js';
import type { PlatformCore, SignInLine, SignInTarget } from '../../platform-api/platform.js';
import type { JobHandlers } from '../../queue/job-queue.js';
import { createStatementClient } from './api/statements.js';
import type { TransportSettings } from './api/transport.js';
import { createDatabricksWriter } from './apply/databricks-writer.js';
import { billedCost } from './billing/billed-cost.js';
import { reconcileBilling } from './billing/billing-reconciler.js';
import { estimateClusterDbus } from './billing/dbu-estimate.js';
import { createCollector, NotReadyYet } from './collect/collector.js';
import { probeS3LogDestination } from './collect/log-store-s3.js';
import { checkSignIn, checkWorkspaceAccess } from './connection/access-check.js';
import { createWorkspaceConnector, openClient } from './connection/workspace-connection.js';
import { createExportService } from './export/export-service.js';
import { createDatabricksFormFactorAdviser } from './form-factor-adviser.js';
import { createDiscovery } from './onboarding/discovery.js';
import { createOnboardingService } from './onboarding/onboarding-service.js';
import type { ConfidentChoiceOf } from './onboarding/saving-estimate.js';
import {
  createServerlessBillingReader,
  type ServerlessBillingReader,
} from './serverless/serverless-billing-reader.js';
import { serverlessBillMissingReason } from './serverless/serverless-collector.js';
import { billedServerlessCost } from './serverless/serverless-cost.js';
import { createServerlessWriter, withServerlessJobs } from './serverless/serverless-writer.js';
import { createDatabricksRepository } from './store/databricks-repository.js';
import {
  createSystemTablesReader,
  type RunBilling,
  type SystemTablesReader,
} from './system-tables/system-tables-reader.js';

declare module '../../queue/job-queue.js' {
  interface JobPayloads {
    /**
     * Collect a finished Databricks run (run, cluster, events, event log) for the projects of its job,
     * or for one named project (a one-time run submitted for it, e.g. from Airflow).
     */
    'databricks.collect': { workspaceId: string; runId: string; projectId?: string | undefined };
    /** Look for finished runs of onboarded jobs that no webhook announced. */
    'databricks.reconcile': { workspaceId: string };
  }
}

export const databricksJobKinds = ['databricks.collect', 'databricks.reconcile'] as const;

export interface DatabricksOptions {
  /** Requests to workspaces: timeouts, retries, concurrency (tests shorten them). */
  transport?: TransportSettings;
  /** Statement polling (tests shorten it). */
  statements?: { pollIntervalMs?: number; waitTimeoutSeconds?: number; timeoutMs?: number };
}

/** Everything Setpoint does with a Databricks workspace, wired from the core's services. */
export function createDatabricksIntegration(
  deps: PlatformCore,
  options: DatabricksOptions = {},
  /** The recommender's pass Discover estimates a job's saving with (its runs and the fleet model). */
  estimates: { confidentChoice: ConfidentChoiceOf },
) {
  const { config } = deps;
  const store = createDatabricksRepository(deps.db);
  const connect = createWorkspaceConnector({
    workspaces: deps.workspaces,
    outbound: deps.outbound,
    transport: options.transport,
  });
  const writer = withServerlessJobs(
    createDatabricksWriter({ connect, exportRecommendation: createExportService({ connect }) }),
    createServerlessWriter(connect),
  );
  const onboarding = createOnboardingService({
    connect,
    store,
    recordBaseline: (input) => deps.applies.recordBaseline({ ...input, platform: writer.platform }),
    projects: deps.projects,
    workspaces: deps.workspaces,
    publicUrl: deps.publicUrl,
  });
  /** Statements on the workspace's SQL warehouse, with its own sign-in; undefined without a warehouse. */
  async function statementsFor(workspaceId: string) {
    const warehouseId = (await store.workspaceLink(workspaceId))?.sql_warehouse_id;
    if (!warehouseId) return undefined;
    const { transport } = await connect(workspaceId);
    return createStatementClient(transport, { warehouseId, ...options.statements });
  }
  /** The workspace's system tables, read through its SQL warehouse. */
  async function systemTablesFor(workspaceId: string): Promise<SystemTablesReader | undefined> {
    const statements = await statementsFor(workspaceId);
    return statements && createSystemTablesReader(statements);
  }
  /** The workspace's serverless usage in system.billing.usage, read through its SQL warehouse. */
  async function serverlessBillingFor(workspaceId: string): Promise<ServerlessBillingReader | undefined> {
    const statements = await statementsFor(workspaceId);
    return statements && createServerlessBillingReader(statements);
  }
  const coresByType = new Map(
    deps.nodeTypes.map((entry) => [`${entry.cloud}:${entry.instanceType}`, entry.vcpus]),
  );
  const collector = createCollector({
    systemTables: systemTablesFor,
    serverlessBilling: serverlessBillingFor,
    coresOf: (cloud, nodeType) => coresByType.get(`${cloud}:${nodeType}`),
    runStored: async ({ runId, projectId, databricksRunId, report, instances }) => {
      const project = await deps.projects.get(projectId);
      const workspace = project.workspaceId ? await deps.workspaces.get(project.workspaceId) : null;
      if (!workspace || !report.cluster.cluster_id) return;
      // nodes placed with the delay this workspace's reconciled bills taught, if any yet
      const learned = await store.launchDelay(workspace.id);
      const estimate = estimateClusterDbus(
        deps.catalog,
        report,
        workspace,
        instances,
        learned?.launch_delay_ms ?? null,
      );
      await store.saveBillingEstimate({
        runId,
        projectId,
        workspaceId: workspace.id,
        databricksRunId,
        clusterId: report.cluster.cluster_id,
        estimatedDbus: estimate.dbus,
        estimatedDbuUsd: estimate.usd,
        nextCheckAt: Date.now(),
        launchWindows: estimate.launchWindows,
        launchDelayMs: estimate.launchDelayMs,
        clusterTerminatedAt: report.cluster.terminated_time ?? null,
      });
    },
    connect,
    store,
    projects: deps.projects,
    runs: deps.runs,
    runFinished: (projectId, run) => deps.applies.runFinished(projectId, run),
    scratchDir: deps.scratchDir,
    logger: deps.logger,
    completenessPollMs: config.logCompletenessPollMs,
    maxIncompleteAttempts: config.logMaxIncompleteAttempts,
  });
  const discover = createDiscovery({
    connect,
    store,
    costModel: createCostModel(deps.catalog),
    projects: deps.projects,
    recommendations: deps.recommendations,
    coresOf: (cloud, nodeType) => coresByType.get(`${cloud}:${nodeType}`),
    confidentChoice: estimates.confidentChoice,
    serverlessBilling: serverlessBillingFor,
  });

  async function enqueueCollect(workspaceId: string, runId: string, projectId?: string): Promise<void> {
    await deps.queue.enqueue(
      'databricks.collect',
      { workspaceId, runId, projectId },
      { idempotencyKey: `databricks.collect:${workspaceId}:${runId}${projectId ? `:${projectId}` : ''}` },
    );
  }

  /** Queues a poll of every onboarded job for runs a lost webhook never announced. */
  async function scheduleReconciliation(bucket: string): Promise<void> {
    const workspaceIds = new Set((await store.onboardedJobs()).map((row) => row.workspace_id));
    for (const workspaceId of workspaceIds) {
      await deps.queue.enqueue(
        'databricks.reconcile',
        { workspaceId },
        { idempotencyKey: `databricks.reconcile:${workspaceId}:${bucket}` },
      );
    }
  }

  const handlers: Partial<JobHandlers> = {
    async 'databricks.collect'({ workspaceId, runId, projectId }, context) {
      try {
        await collector.collect(workspaceId, runId, context.attempt, projectId);
      } catch (error) {
        if (error instanceof NotReadyYet)
          deps.logger.info({ workspaceId, runId, reason: error.message }, 'run not ready for collection');
        throw error;
      }
    },
    async 'databricks.reconcile'({ workspaceId }) {
      // a refused or failing warehouse must not stop the run reconciliation below
      await reconcileBillingOf(workspaceId).catch((error: unknown) =>
        deps.logger.warn(
          { workspaceId, error: String(error) },
          'billing reconciliation failed; retried next round',
        ),
      );
      const { client } = await connect(workspaceId);
      for (const job of await store.onboardedJobs(workspaceId)) {
        for await (const run of client.listRuns({
          jobId: job.job_id,
          // from before the newest run seen: a run whose webhooks were lost is found even when a later
          // run of the job already arrived (collection is idempotent per run, so nothing runs twice)
          startTimeFrom:
            job.last_seen_run_start === null
              ? undefined
              : job.last_seen_run_start - config.reconcileLookbackHours * 3600_000,
          completedOnly: true,
        })) {
          await enqueueCollect(workspaceId, run.run_id);
        }
      }
    },
  };

  /** The run's stored cost with its DBU charge as billed (spend, savings and ROI then use it). */
  async function reviseRunCost(row: { runId: string; projectId: string }, bill: RunBilling): Promise<void> {
    const [stored] = await store.billingOfRuns([row.runId]);
    if (!stored) return;
    if (stored.performance_target !== null) {
      await deps.runs.reviseCost(row.projectId, row.runId, (cost) => billedServerlessCost(cost, bill));
      return;
    }
    await deps.runs.reviseCost(row.projectId, row.runId, (cost) =>
      billedCost(cost, {
        estimatedDbuUsd: stored.estimated_dbu_usd,
        billedDbuUsd: bill.usd,
        billedDbus: bill.dbus,
      }),
    );
  }

  /** A serverless run's cost still pending when Setpoint stopped looking for its bill says so. */
  async function billNeverCame(row: { runId: string; projectId: string }): Promise<void> {
    await deps.runs.reviseCost(row.projectId, row.runId, (cost) =>
      cost.pending ? { ...cost, pending: { reason: serverlessBillMissingReason } } : undefined,
    );
  }

  /** Estimated DBU costs of the workspace's runs against system.billing.usage. */
  async function reconcileBillingOf(workspaceId: string) {
    const statements = await statementsFor(workspaceId);
    if (!statements) return { checked: 0, billed: 0 };
    return reconcileBilling(
      {
        store,
        reader: createSystemTablesReader(statements),
        serverless: createServerlessBillingReader(statements),
        reviseCost: reviseRunCost,
        billNeverCame,
      },
      workspaceId,
    );
  }

  const formFactor = createDatabricksFormFactorAdviser({
    projects: deps.projects,
    runs: deps.runs,
    workspaces: deps.workspaces,
    billing: serverlessBillingFor,
  });

  return {
    store,
    connect,
    formFactor,
    systemTablesFor,
    serverlessBillingFor,
    reconcileBilling: reconcileBillingOf,
    reviseRunCost,
    writer,
    onboarding,
    discover,
    handlers,
    enqueueCollect,
    scheduleReconciliation,
    /** Signs in to a workspace about to be registered: its host and credentials, nothing stored. */
    async checkSignIn(target: SignInTarget, limitMs?: number): Promise<SignInLine> {
      const { client, transport } = openClient(target.host, target.credentials, {
        outbound: deps.outbound,
        transport: options.transport,
      });
      const limits = [options.transport?.requestTimeoutMs, limitMs].filter((ms) => ms !== undefined);
      const { line, reachable } = await checkSignIn(
        client,
        transport.auth,
        limits.length > 0 ? Math.min(...limits) : undefined,
      );
      return { ...line, reachable };
    },
    async checkAccess(workspaceId: string, logDestination?: string, sqlWarehouseId?: string) {
      const { client, s3, transport } = await connect(workspaceId);
      if (logDestination || sqlWarehouseId)
        await store.saveWorkspaceLink(workspaceId, {
          ...(logDestination ? { logDestination } : {}),
          ...(sqlWarehouseId ? { sqlWarehouseId } : {}),
        });
      const link = await store.workspaceLink(workspaceId);
      const reader = await systemTablesFor(workspaceId);
      return checkWorkspaceAccess(client, {
        auth: transport.auth,
        systemTables: {
          warehouseId: link?.sql_warehouse_id ?? undefined,
          probe: reader
            ? async () => {
                const seen = await reader.probe(Date.now() - 7 * 86_400_000);
                return `can read system tables through warehouse ${link?.sql_warehouse_id}: last 7 days ${seen.usageRecords} billing records, ${seen.nodeMinutes} node-minutes, ${seen.runPeriods} run periods`;
              }
            : undefined,
        },
        logDestination: link?.log_destination ?? undefined,
        reachTimeoutMs: options.transport?.requestTimeoutMs,
        ...(s3 && { checkS3: (destination: string) => probeS3LogDestination(s3, destination) }),
      });
    },
  };
}

export type DatabricksIntegration = ReturnType<typeof createDatabricksIntegration>;
