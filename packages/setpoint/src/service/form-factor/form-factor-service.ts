import type { FormFactorAdviceResource, FormFactorDecisionInput } from '@setpoint/api-contract';
import { ConflictError, ValidationError } from '@setpoint/foundation/errors';
import type { AuditService } from '../audit/audit-service.js';
import type { Project, ProjectService } from '../projects/project-service.js';
import type { FormFactor, FormFactorAdvice } from './form-factor-advice.js';

/**
 * What a platform gives the form-factor advice: its advice for one of its projects (`adviseFormFactor` over
 * its own estimate) and the words of the move. Absent: the platform advises no form factor.
 */
export interface FormFactorAdviser {
  advise(project: Project): Promise<{
    advice: FormFactorAdvice;
    /** The move in words, e.g. "job cluster `main` → serverless compute (performance optimized)". */
    change: string;
    /** Where a run happens in each form, for the explanation: "on its job cluster", "on EMR Serverless". */
    where: Record<FormFactor, string>;
  }>;
}

/** The audit action of a person's decision on a proposed move. */
const decisionAction = { approve: 'form_factor.approved', dismiss: 'form_factor.dismissed' } as const;

const usd = (value: number | null) => (value === null ? '—' : `$${value.toFixed(2)}`);

function explanationOf(advice: FormFactorAdvice, words: Record<FormFactor, string>): string {
  const estimate = advice.estimate;
  const where = words[advice.to];
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
 * Form-factor advice for every platform's projects, served to the API, the dashboard and the CLI: the platform's
 * advice from the job's evidence, and a person's decision on a proposed move, kept in the audit trail (one
 * lifecycle for every platform). The move itself is never written by Setpoint: it changes where the job runs
 * (its tasks, its launch), a change the team makes.
 */
export function createFormFactorService(deps: {
  projects: Pick<ProjectService, 'get'>;
  audit: Pick<AuditService, 'record' | 'page'>;
  /** The adviser of the project's platform; undefined when its platform advises no form factor. */
  adviserOf(projectId: string): Promise<FormFactorAdviser | undefined>;
}) {
  async function advised(projectId: string) {
    const project = await deps.projects.get(projectId);
    const adviser = await deps.adviserOf(projectId);
    if (!adviser)
      throw new ValidationError(
        'FORM_FACTOR_NOT_ADVISED',
        `project ${projectId}'s platform gives no form-factor advice (Databricks jobs and EMR workloads do)`,
      );
    return adviser.advise(project);
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
    const { advice, change, where } = await advised(projectId);
    const decision = advice.verdict === 'move' ? await latestDecision(projectId, advice.to) : undefined;
    return {
      project_id: projectId,
      from: advice.from,
      to: advice.to,
      verdict: advice.verdict,
      change,
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
      explanation: explanationOf(advice, where),
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
