import type {
  ProjectResource,
  RecommendationDecisionResource,
  RecommendationResource,
  RunCostResource,
  RunDetailResource,
  RunResource,
  WorkspaceResource,
} from '@setpoint/api-contract';
import { costPendingMessage, predictedCostPendingMessage } from '@setpoint/api-contract';
import type { Project } from '../../service/projects/project-service.js';
import type { RecommendationRecord } from '../../service/recommendations/recommendation-service.js';
import { basisText, learningText, slaText } from '../../service/recommender/decision.js';
import type { RecommendationDecision } from '../../service/recommender/recommender.js';
import type { RunCost } from '../../service/runs/run-records.js';
import type { Run, RunDetail } from '../../service/runs/run-service.js';
import type { Workspace } from '../../service/workspaces/workspace-service.js';
import { presentWorkspaceSettings } from '../../service/workspaces/workspace-settings.js';

/** The domain records in the wire shapes of `@setpoint/api-contract` (snake_case resources). */
export function presentProject(project: Project): ProjectResource {
  return {
    id: project.id,
    name: project.name,
    description: project.description,
    workspace_id: project.workspaceId,
    job_id: project.jobId,
    cluster_key: project.clusterKey,
    app_id: project.appId,
    settings: project.settings,
    phase: project.phase,
    learning_reset_at: project.learningResetAt,
    created_at: project.createdAt,
    updated_at: project.updatedAt,
  };
}

export function presentRun(run: Run): RunResource {
  return {
    id: run.id,
    project_id: run.projectId,
    external_run_id: run.externalRunId,
    pipeline_state: run.pipelineState,
    status: run.status,
    started_at: run.startedAt,
    ended_at: run.endedAt,
    cluster: run.clusterFacts,
    cluster_config: run.clusterConfig,
    eventlog_uri: run.eventlogUri,
    eventlog_bytes: run.eventlogBytes,
    input_bytes: run.inputBytes,
    cost: run.cost ? presentRunCost(run.cost) : null,
    cost_pending:
      run.costPending === null
        ? null
        : {
            state: 'billing_not_yet_available',
            message: costPendingMessage,
            reason: run.costPending,
          },
    on_recommendation_id: run.recommendationId,
    error: run.error,
    created_at: run.createdAt,
    updated_at: run.updatedAt,
  };
}

/** A run's cost with the part billed outside its Spark application, when the platform billed more than it. */
export function presentRunCost(cost: RunCost): RunCostResource {
  return {
    currency: 'USD',
    total_usd: cost.totalUsd,
    low_usd: cost.lowUsd,
    high_usd: cost.highUsd,
    components: cost.components,
    overhead: cost.overhead ? { seconds: cost.overhead.seconds, usd: cost.overhead.usd } : null,
  };
}

export function presentRunDetail(run: RunDetail): RunDetailResource {
  return { ...presentRun(run), cluster_timeline: run.clusterTimeline, profile_summary: run.profileSummary };
}

export function presentDecision(decision: RecommendationDecision): RecommendationDecisionResource {
  const { sla, basis } = decision;
  return {
    action: decision.action,
    change: decision.change,
    sla:
      sla.kind === 'project'
        ? {
            kind: 'project',
            minutes: sla.seconds / 60,
            probability_meets: sla.probabilityMeets,
            feasible: sla.feasible,
            infeasible: !sla.feasible,
            fastest_known:
              !sla.feasible && sla.fastestKnown
                ? {
                    configuration: sla.fastestKnown.description,
                    runtime_minutes: sla.fastestKnown.runtimeSeconds / 60,
                  }
                : null,
          }
        : {
            kind: 'none',
            best_seen_minutes: sla.bestSeenSeconds === null ? null : sla.bestSeenSeconds / 60,
            limit_minutes: sla.limitSeconds === null ? null : sla.limitSeconds / 60,
          },
    sla_text: slaText(decision),
    probability_fails: decision.probabilityFails,
    basis_text: basisText(basis),
    basis: {
      runs: basis.runs,
      summarized_runs: basis.summarizedRuns ?? 0,
      configurations: basis.configurations,
      fleet_jobs: basis.fleetJobs,
      shipped_jobs: basis.shippedJobs,
      calibration_cases: basis.calibrationCases,
      closest: basis.closest.map(({ label, weight, source }) => ({ label, weight, source: source ?? null })),
    },
    filters: decision.filtered.map((outcome) => ({
      filter: outcome.filter,
      dropped: outcome.dropped,
      examples: outcome.examples ?? [outcome.example],
    })),
    notes: decision.notes,
    learning: decision.learning
      ? {
          active: decision.learning.active,
          run: decision.learning.run,
          max_runs: decision.learning.maxRuns,
          miss_budget: decision.learning.missBudget,
          misses_spent: decision.learning.missesSpent,
          rebase_reason: decision.learning.rebaseReason ?? null,
          exploration: decision.learning.exploration
            ? {
                expected_improvement_usd: decision.learning.exploration.expectedImprovementUsd,
                best_known_cost_usd: decision.learning.exploration.bestKnownCostUsd,
                expected_cost_usd: decision.learning.exploration.expectedCostUsd,
              }
            : null,
        }
      : null,
    learning_text: learningText(decision),
  };
}

export function presentRecommendation(rec: RecommendationRecord): RecommendationResource {
  return {
    id: rec.id,
    project_id: rec.projectId,
    state: rec.state,
    phase: rec.phase,
    configuration: rec.configuration,
    predicted: rec.prediction
      ? {
          runtime_minutes: rec.prediction.runtimeMinutes,
          cost_usd: rec.prediction.costUsd,
          cost_note: rec.prediction.costUsd === null ? predictedCostPendingMessage : null,
        }
      : null,
    explanation: rec.explanation,
    decision: rec.decision ? presentDecision(rec.decision) : null,
    based_on_run_id: rec.basedOnRunId,
    based_on_run_pruned_at: rec.basedOnRunPrunedAt,
    error: rec.error,
    requested_by: rec.requestedBy,
    applied:
      rec.applyRequestedAt === null
        ? null
        : { requested_at: rec.applyRequestedAt, requested_by: rec.applyRequestedBy },
    created_at: rec.createdAt,
    updated_at: rec.updatedAt,
  };
}

export function presentWorkspace(workspace: Workspace): WorkspaceResource {
  return {
    id: workspace.id,
    name: workspace.name,
    platform: workspace.platform,
    ...presentWorkspaceSettings(workspace),
    created_at: workspace.createdAt,
    updated_at: workspace.updatedAt,
  };
}
