import type { ProjectSettings } from '@setpoint/api-contract';
import type { Candidate } from '../../optimizer/types.js';
import type { WorkspaceFacts } from '../workspaces/workspace-service.js';
import type { FilterOutcome } from './candidate-filters.js';
import type { ClusterConfiguration, RecommendationInput } from './recommender.js';
import type { RecommenderRun } from './recommender-run.js';

/** One candidate configuration of a platform's cluster: the optimizer's facts of it and the platform's shape. */
export interface ShapeEntry<Shape> {
  candidate: Candidate;
  shape: Shape;
  /** False for configurations the project's bounds forbid (kept so past runs on them can be learned from). */
  allowed: boolean;
}

export interface CandidateSpace<Shape> {
  entries: ShapeEntry<Shape>[];
  byId: Map<string, ShapeEntry<Shape>>;
  /** Families (as the optimizer names them) the project allows. */
  allowedFamilies: string[];
  /** What the platform's candidate filters left out while building the space. */
  filtered: FilterOutcome[];
  /**
   * Configurations on an engine the job never ran (left out for want of evidence) that one learning run
   * may try when nothing on the job's engine can meet the SLA (`engine-trial.ts`).
   */
  trials?: EngineTrials<Shape>;
}

/** A speed-up of executor task time as a prior: its 10th, 50th and 90th percentile (log-normal on each side of the median). */
export interface SpeedupPrior {
  low: number;
  mid: number;
  high: number;
  /** Where the prior comes from, in words (for the explanation). */
  source: string;
  /** Whether the prior was read from the job's own run (a trial made for savings needs that much). */
  ofJob: boolean;
}

export interface EngineTrialEntry<Shape> {
  /** The configuration on the other engine, priced at that engine's rates. */
  entry: ShapeEntry<Shape>;
  /** The same cluster on the job's engine: its prediction is what the speed-up divides. */
  baselineId: string;
}

/**
 * Configurations on an engine the job never ran that one learning run may try (`engine-trial.ts` decides
 * when): each with the same cluster on the job's engine, and the speed-up prior they are predicted with.
 */
export interface EngineTrials<Shape> {
  /** The engine in a word ("Photon"). */
  engine: string;
  entries: EngineTrialEntry<Shape>[];
  speedup: SpeedupPrior;
}

/** What `candidateSpace` builds the space from. */
export interface SpaceContext<Shape, Reads> {
  basedOn: RecommenderRun;
  workspace: WorkspaceFacts | null;
  settings: ProjectSettings;
  current: Shape;
  observed: readonly Shape[];
  /** What `prepare` read for this recommendation; null when nothing was read (no workspace, a fleet job). */
  reads: Reads | null;
}

/**
 * A platform's clusters as the recommender sees them (a Databricks job cluster; EMR instance groups
 * or fleets): how a run's configuration is translated once into a shape, what the platform must read
 * before recommending, which shapes are candidates (each with the optimizer's facts of it), and what
 * applying one writes. Everything else about recommending is the core's (`OptimizerRecommender`), the
 * same for every platform; a platform gives this model and never extends the recommender.
 */
export interface ClusterModel<Shape, Reads = unknown> {
  /**
   * What the platform reads before a recommendation on this based-on run (a workspace's compute policy,
   * the node types it can launch, the instance types a region supports for a release): asynchronously,
   * once per recommendation, handed to `candidateSpace` as `reads`. Absent, or null: nothing to read.
   */
  prepare?(input: RecommendationInput, basedOn: RecommenderRun): Promise<Reads | null>;
  /**
   * A run that had no cluster (a serverless run): it has no shape, and nothing about clusters is learned
   * from it (folded, or as a fleet job). Absent: every run had one.
   */
  clusterless?(run: RecommenderRun): boolean;
  /**
   * The shape a past run was configured with: its reported configuration where it speaks, its facts where
   * it is silent. The based-on run's is the current configuration: what keeping it writes.
   */
  shapeOfRun(run: RecommenderRun, workspace: WorkspaceFacts | null): Shape;
  /**
   * The hardware a run really ran on, under which its runtime and cost are learned, when the platform
   * launched another than `configured` names (a Databricks flexible node type's alternate). Absent, or
   * `configured` returned: the configured hardware ran.
   */
  shapeThatRan?(run: RecommenderRun, configured: Shape): Shape;
  shapeId(shape: Shape): string;
  /** Priced candidates around the current shape; every observed shape is in it, allowed or not. */
  candidateSpace(context: SpaceContext<Shape, Reads>): CandidateSpace<Shape>;
  /**
   * The same cluster all on-demand (what a tight SLA takes instead of spot); null when it is already, or
   * when the platform never changes this shape's market. The service swaps a spot choice for its twin only
   * when the twin is an allowed candidate; the optimizer is told which candidates that is (`MarketSwaps`).
   */
  onDemandTwin(shape: Shape): Shape | null;
  /**
   * What apply writes for a shape, in the platform's terms, stated against the configuration the job runs
   * on now (`current`, the based-on run's) so that what stays as it is is not written as a change.
   */
  configurationOf(shape: Shape, current: ClusterConfiguration | null): ClusterConfiguration;
  /** Shapes of one kind share a price factor learned from runs (e.g. "autoscaled|spot-with-fallback"). */
  priceKind(shape: Shape): string;
  /** The shape in a few words, for explanations: "8 × r5d.xlarge (autoscale 2–8), spot with fallback". */
  describe(shape: Shape): string;
}
