import type { ExportFormat } from '@setpoint/api-contract';
import type { AppError } from '@setpoint/foundation/errors';
import type { RolledBackChange } from '../audit/rollback-audit.js';
import type { Project } from '../projects/project-records.js';
import type { RecommendationRecord } from '../recommendations/recommendation-records.js';
import type { AppliedChange } from './applied-change-records.js';

/** One setting a write changes, with its value before and after. */
export type SettingChange = RolledBackChange;

/**
 * Where a platform writes a project's configuration (a job's cluster, a long-running cluster), or why it
 * does not (the project is not linked, its clusters are transient): the refusal an explicit request gets.
 */
export type WriteLocation<Target> =
  | { target: Target; description: string; refusal?: undefined }
  | { refusal: AppError; target?: undefined; description?: undefined };

/** A write worked out from what the platform holds now; nothing is written yet. */
export interface PlannedWrite {
  /** What the history records once it is written: the platform's own JSON (a whole cluster, a resize). */
  configuration: Record<string, unknown>;
  /** What it changes, setting by setting; empty when the platform already holds it. */
  changes: SettingChange[];
  /** For an undo on a platform that undoes changes one by one: the change it undoes. */
  undoes: AppliedChange | null;
}

/** What the platform holds that differs from Setpoint's record: someone changed it outside Setpoint. */
export interface OutsideChange {
  fields: string[];
  /**
   * The configuration found, when the platform records whole configurations: it becomes the history's
   * newest entry (a `baseline` by `external`), so a later rollback can go back past it.
   */
  found: Record<string, unknown> | null;
}

/**
 * All a platform provides for applying, like a cloud provider under a provisioning core: it locates the
 * project's cluster, plans a write from what the platform holds, tells whether the platform holds a
 * planned write already, writes, and exports. The core (`apply-service.ts`) owns everything else: the
 * history, the guard, the auto-apply policy, rollback, the SLA guard's revert, and one apply at a time.
 *
 * Members are methods so a platform's writer can name its own `Target`.
 */
export interface ApplyWriter<Target = unknown> {
  /** The `workspaces.platform` value whose projects it writes. */
  readonly platform: string;
  /** The format `export` uses when none is asked for. */
  readonly defaultExportFormat: ExportFormat;
  locate(project: Project): Promise<WriteLocation<Target>>;
  /**
   * Compares the platform with Setpoint's record: the whole history, oldest first, and the changes of
   * Setpoint's that are still in place. Null when nothing differs.
   */
  changedOutside(
    target: Target,
    record: { history: readonly AppliedChange[]; standing: readonly AppliedChange[] },
  ): Promise<OutsideChange | null>;
  /** Writing a recommendation's configuration (its id tags what is written, where the platform can). */
  planApply(
    target: Target,
    recommendation: { id: string; configuration: Record<string, unknown> },
    project: Project,
  ): Promise<PlannedWrite>;
  /**
   * Going back to `to` (null: to before every change of Setpoint's still in place): `undo` holds those
   * changes made after it that still stand, oldest first, and `latest` the history's newest entry. A
   * platform that writes whole configurations writes `to`'s; one that records changes undoes them, newest
   * first (one planned write each).
   */
  planUndo(
    target: Target,
    undo: { to: AppliedChange | null; undo: readonly AppliedChange[]; latest: AppliedChange | undefined },
  ): Promise<PlannedWrite[]>;
  /** Whether the platform already holds what a planned write writes (an earlier try wrote it, unrecorded). */
  holds(target: Target, planned: PlannedWrite): Promise<boolean>;
  /** The platform's own check of a planned write, run right before it is written (a refusal throws). */
  validate?(target: Target, planned: PlannedWrite): Promise<void>;
  write(target: Target, planned: PlannedWrite): Promise<void>;
  /** A recommendation as the file a team keeps (Terraform, the JSON Setpoint writes, a launch request). */
  export(project: Project, recommendation: RecommendationRecord, format: ExportFormat): Promise<string>;
  /** A recorded configuration for the API (snake_case) and in one line for tables. */
  describe(configuration: Record<string, unknown>): { cluster: Record<string, unknown>; summary: string };
}
