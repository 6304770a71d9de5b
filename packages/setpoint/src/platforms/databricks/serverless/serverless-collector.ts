import type { Logger } from '../../../logging/logger.js';
import type { Project } from '../../../service/projects/project-service.js';
import type { RunService } from '../../../service/runs/run-service.js';
import type { Run } from '../api/schema.js';
import type { DatabricksRepository } from '../store/databricks-repository.js';
import type { ServerlessBillingReader } from './serverless-billing-reader.js';
import { estimateServerlessCharge, type ServerlessCharge } from './serverless-cost.js';
import type { ServerlessReport } from './serverless-report.js';
import { type ServerlessRunSpan, serverlessProfile, serverlessRunSpan } from './serverless-run.js';

/** How far back a job's billed runs teach the rate a new run is estimated at. */
const rateWindowMs = 30 * 86_400_000;

export interface ServerlessCollectorDependencies {
  runs: Pick<RunService, 'createWithProfile' | 'findExisting'>;
  store: Pick<DatabricksRepository, 'saveBillingEstimate'>;
  logger: Logger;
  now?: () => number;
}

/** Why a run's cost waits for its bill: what "cost pending: billing not yet available" means for it. */
export const serverlessBillPendingReason =
  'Databricks writes serverless usage to system.billing.usage hours after a run, and this job has no billed run to estimate from yet: the cost fills in when its billing records land';
/** Why a pending cost stays unknown once Setpoint stopped looking for the run's bill. */
export const serverlessBillMissingReason =
  'no billing records for this run in system.billing.usage three days after it: Setpoint stopped looking; check that the workspace bills this job (system.billing.usage, usage_metadata.job_run_id)';

/**
 * What the run cost, as far as is known when it is collected: its own bill when every record up to the end of
 * its tasks is there (a run collected late), else the rate its job's billed runs cost per execution second;
 * with neither, the cost is pending until its bill arrives (never $0).
 */
async function chargeOf(
  billing: ServerlessBillingReader,
  run: Run,
  span: ServerlessRunSpan,
  now: number,
): Promise<ServerlessCharge> {
  const bill = await billing.runBill(String(run.run_id));
  if (bill.records > 0 && bill.billedUntilMs >= span.endMs)
    return {
      performanceTarget: span.performanceTarget,
      dbus: bill.dbus,
      usd: bill.usd,
      basis: 'as billed in system.billing.usage',
    };
  const estimate = estimateServerlessCharge(await billing.spendSince(now - rateWindowMs), {
    jobId: run.job_id ?? '',
    performanceTarget: span.performanceTarget,
    executionSeconds: span.executionSeconds,
  });
  return (
    estimate ?? {
      performanceTarget: span.performanceTarget,
      dbus: 0,
      usd: 0,
      basis: serverlessBillPendingReason,
      pending: true,
    }
  );
}

/**
 * Collects a job run's serverless tasks for the job's serverless project: the run with its runtime from the
 * Jobs API's task timeline (start-up included), its outcome and performance mode, costed as far as is known,
 * and a watch on its bill in system.billing.usage, which replaces the estimate when it arrives (and again when
 * Databricks restates it). Returns the span the SLA guard judges, or undefined when no task ran serverless.
 */
export async function collectServerlessRun(
  deps: ServerlessCollectorDependencies,
  billing: ServerlessBillingReader,
  input: {
    workspace: { id: string; cloud: string | null; region: string | null; planType: string | null };
    run: Run;
    project: Project;
  },
): Promise<ServerlessRunSpan | undefined> {
  const { workspace, run, project } = input;
  const span = serverlessRunSpan(run);
  if (!span) {
    deps.logger.info({ projectId: project.id, runId: run.run_id }, 'run used no serverless compute');
    return undefined;
  }
  const externalRunId = String(run.run_id);
  if (await deps.runs.findExisting(project.id, externalRunId)) return span;
  const now = (deps.now ?? Date.now)();
  const charge = await chargeOf(billing, run, span, now);
  const serverless: ServerlessReport = {
    performance_target: span.performanceTarget,
    dbus: charge.dbus,
    usd: charge.usd,
    basis: charge.basis,
    ...(charge.pending ? { pending: true } : {}),
  };
  // the cluster report's shape, with no cluster: the coster prices its `serverless` part
  const clusterReport = {
    plan_type: workspace.planType ?? 'Premium',
    compute_type: 'Serverless Jobs Compute',
    cluster: {},
    tasks: span.tasks,
    serverless,
  };
  const { run: created } = await deps.runs.createWithProfile({
    projectId: project.id,
    externalRunId,
    clusterReport,
    status: span.failed ? (run.state.result_state ?? 'FAILED') : 'SUCCESS',
    profile: serverlessProfile(span, workspace),
  });
  await deps.store.saveBillingEstimate({
    runId: created.id,
    projectId: project.id,
    workspaceId: workspace.id,
    databricksRunId: externalRunId,
    clusterId: '',
    estimatedDbus: charge.dbus,
    estimatedDbuUsd: charge.usd,
    nextCheckAt: now,
    launchWindows: [],
    launchDelayMs: null,
    clusterTerminatedAt: span.endMs,
    performanceTarget: span.performanceTarget,
  });
  return span;
}
