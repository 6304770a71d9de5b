import type { FormFactorAdviceResource, FormFactorDecisionInput } from '@setpoint/api-contract/databricks';
import { ConflictError, ValidationError } from '@setpoint/foundation/errors';
import type { AuditService } from '../../../service/audit/audit-service.js';
import type { ProjectService } from '../../../service/projects/project-service.js';
import type { RunService } from '../../../service/runs/run-service.js';
import type { WorkspaceService } from '../../../service/workspaces/workspace-service.js';
import { type FormFactor, type FormFactorAdvice, formFactorAdvice } from './form-factor-advice.js';
import { formFactorEvidence } from './form-factor-evidence.js';
import type { ServerlessBillingReader } from './serverless-billing-reader.js';

/** The audit action of a person's decision on a proposed move. */
const decisionAction = { approve: 'form_factor.approved', dismiss: 'form_factor.dismissed' } as const;

const formWords: Record<FormFactor, string> = {
  classic: 'its job cluster',
  serverless: 'serverless compute (performance optimized)',
};

const usd = (value: number | null) => (value === null ? '—' : `$${value.toFixed(2)}`);

function changeOf(advice: FormFactorAdvice, clusterKey: string | null): string {
  const cluster =
    clusterKey && advice.from === 'classic' ? `job cluster \`${clusterKey}\`` : formWords[advice.from];
  return `${cluster} → ${advice.to === 'classic' ? 'a job cluster' : formWords.serverless}`;
}

function explanationOf(advice: FormFactorAdvice): string {
  const estimate = advice.estimate;
  const where = advice.to === 'serverless' ? 'on serverless compute' : 'on its job cluster';
  const figure = estimate
    ? `a run ${where} ${estimate.kind === 'measured' ? 'cost' : 'would cost'} ${usd(estimate.usdPerRun.mid)} (${usd(estimate.usdPerRun.low)}–${usd(estimate.usdPerRun.high)}, ${estimate.kind}) against ${usd(advice.currentUsdPerRun)} now`
    : `no estimate ${where}`;
  const verdict = {
    move: 'Proposed: move it (a person approves; Setpoint does not make the move)',
    stay: 'Stay as it is',
    estimate_only: 'Estimate only, no move proposed',
    no_estimate: 'No estimate',
  }[advice.verdict];
  return `${verdict}: ${figure}; ${advice.reason}.`;
}

/**
 * Form-factor advice for Databricks job projects, served to the API, the dashboard and the CLI: the advice
 * from the job's evidence, and a person's decision on a proposed move, kept in the audit trail. The move itself
 * is never written by Setpoint: it changes the job's tasks (an environment instead of a cluster, or back), a
 * change the team makes.
 */
export function createFormFactorService(deps: {
  /** The platform's name as workspaces record it. */
  platform: string;
  projects: Pick<ProjectService, 'get' | 'list'>;
  runs: Pick<RunService, 'list'>;
  workspaces: Pick<WorkspaceService, 'get'>;
  audit: Pick<AuditService, 'record' | 'page'>;
  billing(workspaceId: string): Promise<ServerlessBillingReader | undefined>;
  now?: () => number;
}) {
  async function jobProject(projectId: string) {
    const project = await deps.projects.get(projectId);
    if (!project.workspaceId || !project.jobId)
      throw new ValidationError(
        'FORM_FACTOR_NOT_A_JOB',
        `project ${projectId} is not linked to a Databricks job: form-factor advice compares a job's runs in each form`,
      );
    const workspace = await deps.workspaces.get(project.workspaceId);
    if (workspace.platform !== deps.platform)
      throw new ValidationError(
        'FORM_FACTOR_NOT_DATABRICKS',
        `project ${projectId} runs on ${workspace.platform}: form-factor advice covers Databricks jobs`,
      );
    return { project, workspace };
  }

  async function latestDecision(projectId: string, to: FormFactor) {
    const entries = await Promise.all(
      Object.values(decisionAction).map((action) => deps.audit.page({ projectId, action }, 20, 0)),
    );
    return entries
      .flatMap((page) => page.rows)
      .filter((entry) => entry.detail.to === to)
      .sort((a, b) => b.createdAt - a.createdAt || b.id - a.id)[0];
  }

  async function advise(projectId: string): Promise<FormFactorAdviceResource> {
    const { project, workspace } = await jobProject(projectId);
    const evidence = await formFactorEvidence(
      {
        projects: deps.projects,
        runs: deps.runs,
        billing: deps.billing,
        workspace: async () => ({ cloud: workspace.cloud, planType: workspace.planType }),
        ...(deps.now ? { now: deps.now } : {}),
      },
      project,
    );
    const advice = formFactorAdvice(evidence);
    const decision = advice.verdict === 'move' ? await latestDecision(projectId, advice.to) : undefined;
    return {
      project_id: projectId,
      from: advice.from,
      to: advice.to,
      verdict: advice.verdict,
      change: changeOf(advice, project.clusterKey),
      current_usd_per_run: advice.currentUsdPerRun,
      estimate: advice.estimate && {
        usd_per_run: advice.estimate.usdPerRun,
        runtime_minutes: advice.estimate.runtimeMinutes,
        kind: advice.estimate.kind,
      },
      saving_usd_per_run: advice.savingUsdPerRun,
      probability_meets_sla: advice.probabilityMeetsSla,
      basis: advice.basis,
      reason: advice.reason,
      explanation: explanationOf(advice),
      check: advice.check && {
        estimated_usd: advice.check.estimatedUsd,
        measured_usd: advice.check.measuredUsd,
        error: advice.check.error,
      },
      proposal:
        advice.verdict !== 'move'
          ? null
          : decision
            ? {
                status: decision.action === decisionAction.approve ? 'approved' : 'dismissed',
                decided_by: decision.actor,
                decided_at: decision.createdAt,
                note: typeof decision.detail.note === 'string' ? decision.detail.note : null,
              }
            : { status: 'proposed', decided_by: null, decided_at: null, note: null },
    };
  }

  return {
    advise,

    /** A person approves or dismisses the proposed move; recorded in the audit trail, nothing is written. */
    async decide(
      projectId: string,
      input: FormFactorDecisionInput,
      actor: string,
    ): Promise<FormFactorAdviceResource> {
      const advice = await advise(projectId);
      if (advice.verdict !== 'move')
        throw new ConflictError(
          'FORM_FACTOR_NOT_PROPOSED',
          `no move is proposed for project ${projectId} (${advice.verdict}: ${advice.reason})`,
        );
      await deps.audit.record({
        entity: 'project',
        entityId: projectId,
        action: decisionAction[input.decision],
        actor,
        detail: {
          from: advice.from,
          to: advice.to,
          estimated_usd_per_run: advice.estimate?.usd_per_run.mid ?? null,
          current_usd_per_run: advice.current_usd_per_run,
          ...(input.note ? { note: input.note } : {}),
        },
      });
      return advise(projectId);
    },
  };
}

export type FormFactorService = ReturnType<typeof createFormFactorService>;
