import type { ProjectPhase, ProjectSettings } from '@setpoint/api-contract';
import type { Exploration, RecommendationBasis } from '../../optimizer/recommend.js';
import type { Range } from '../../optimizer/types.js';
import type { WorkspaceFacts } from '../workspaces/workspace-service.js';
import type { FilterOutcome } from './candidate-filters.js';
import type { FoldedStatistics } from './learning-summary.js';
import type { RecommenderRun } from './recommender-run.js';

/**
 * What a recommendation tells the platform to write, in the platform's own terms (a Databricks
 * `new_cluster` fragment; EMR instance groups). The core stores and shows it without reading it.
 */
export type ClusterConfiguration = Record<string, unknown>;

export interface Prediction {
  runtimeMinutes: Range;
  /**
   * Null when no run the prediction reads has a known cost yet: a serverless job whose every run waits for
   * its bill (never $0, which would read as free).
   */
  costUsd: Range | null;
}

export interface PastRecommendation {
  id: string;
  state: string;
  basedOnRunId: string | null;
  configuration: ClusterConfiguration | null;
  prediction: Prediction | null;
  applyRequestedAt: number | null;
}

/** Another project of the organization, as the fleet prior learns from it. */
export interface FleetProjectHistory {
  projectId: string;
  /** The project's name: how explanations name it when it is one of the closest fleet jobs. */
  name: string;
  settings: ProjectSettings;
  workspace: WorkspaceFacts | null;
  /** Its profiled and costed runs, oldest first. */
  runs: RecommenderRun[];
}

/**
 * The organization's projects as the recommender can learn from them: how many analyzed runs each has
 * now (cheap, asked on every recommendation) and their histories (loaded only when the prior is relearned).
 */
export interface OrganizationFleet {
  runCounts(): Promise<ReadonlyMap<string, number>>;
  load(projectIds: readonly string[]): Promise<FleetProjectHistory[]>;
}

export interface RecommendationInput {
  project: {
    id: string;
    name: string;
    phase: ProjectPhase;
    settings: ProjectSettings;
    workspace: WorkspaceFacts | null;
  };
  basedOnRunId: string;
  /** Every run of the project with a profile and a cost, oldest first. */
  runs: RecommenderRun[];
  /**
   * The project's runs before `runs` (since its learning reset) as the learning summary folded them:
   * present only when they end right before the first of `runs`.
   */
  earlier?: FoldedStatistics;
  recommendations: PastRecommendation[];
  /** The organization's projects (the fleet prior learns from them); absent: the shipped fleet only. */
  fleet?: OrganizationFleet;
}

/** What a recommendation rests on (the optimizer's basis), as the API, the CLI and the dashboard show it. */
export type RecommendationBasisView = RecommendationBasis;

/**
 * The one decision behind a recommendation: the card, the explanation, the diff and the API all read it
 * (with `configuration` and `prediction`), so they cannot disagree.
 */
export interface RecommendationDecision {
  /** `keep`: the job's cluster stays as it is (apply writes nothing). */
  action: 'keep' | 'change';
  /** The change in words ("8 × r5d.xlarge → 32 × r5d.xlarge"), or "no change". */
  change: string;
  sla:
    | {
        kind: 'project';
        seconds: number;
        probabilityMeets: number;
        feasible: boolean;
        /** With an infeasible SLA, the fastest configuration the job has run (median runtime); else absent. */
        fastestKnown?: { description: string; runtimeSeconds: number } | null;
      }
    /** With no SLA, the runtime bound held instead; both null while no run has completed (no bound yet). */
    | { kind: 'none'; bestSeenSeconds: number | null; limitSeconds: number | null };
  probabilityFails: number;
  basis: RecommendationBasisView;
  /** What each named candidate filter removed, and why. */
  filtered: FilterOutcome[];
  /** Decisions taken after the optimizer's (infeasible SLA, spot risk, observed runs), in words. */
  notes: string[];
  /**
   * A trial run on an engine the job never ran (Photon), made because nothing on its engine meets the
   * SLA (`reason` 'sla', also when absent: decisions recorded before savings trials) or, during learning,
   * for what the engine is expected to save ('savings'): the speed-up prior it was predicted with (10th,
   * 50th, 90th percentile).
   */
  trial?: {
    engine: string;
    reason?: 'sla' | 'savings';
    speedup: { low: number; mid: number; high: number };
  };
  /**
   * Where the job stands in its learning phase: whether this recommendation is a learning run (it may
   * knowingly risk the SLA), which one, and how much of the project's SLA-miss budget runs after the first
   * recommendation have spent (`missBudget` null: safe learning, no misses risked by choice). Absent from decisions
   * recorded before the budget existed.
   */
  learning?: {
    active: boolean;
    run: number;
    maxRuns: number;
    missBudget: number | null;
    missesSpent: number;
    /**
     * Why this recommendation rebased (earlier runs no longer describe the job, so learning starts over
     * from this run), or null when it did not. Absent from decisions recorded before rebases were part of
     * the learning record (those recorded a rebasing recommendation as no learning run).
     */
    rebaseReason?: string | null;
    /**
     * Set when, learning over, this change is an untried configuration tried for what it may save (the
     * optimizer's explore rule), which may be expected to cost more than the cheapest one run so far.
     * Absent or null otherwise, and in decisions recorded before explorations were told apart.
     */
    exploration?: Exploration | null;
    /**
     * Set when this safe learning run is below the model's confidence, made because a configuration that
     * met the SLA bounds it (safe expansion): that configuration, and its worst runtime scaled perfectly to
     * this cluster's cores. Absent or null otherwise.
     */
    expansion?: { from: string; boundSeconds: number } | null;
  };
}

export interface RecommendationOutput {
  /** The recommender's judgement of where the project stands; it becomes the project's phase. */
  phase: ProjectPhase;
  configuration: ClusterConfiguration;
  prediction: Prediction;
  explanation: string;
  /** What the candidate filters left out, and why (logged with the recommendation). */
  filtered?: FilterOutcome[];
  /** The decision in structured form (absent from recommenders that only speak text). */
  decision?: RecommendationDecision;
}

/** Runs that left a project's learning window, to add to its learning summary. */
export interface FoldInput {
  project: RecommendationInput['project'];
  /** What the summary holds so far. */
  folded: FoldedStatistics;
  /** The next runs after the summary's, oldest first. */
  runs: RecommenderRun[];
}

export interface Recommender {
  recommend(input: RecommendationInput): Promise<RecommendationOutput>;
  /**
   * The summary with `runs` added (their configurations are the platform model's to name). Absent, or
   * null: the recommender learns from the window alone and nothing is folded.
   */
  fold?(input: FoldInput): Promise<FoldedStatistics | null>;
}
