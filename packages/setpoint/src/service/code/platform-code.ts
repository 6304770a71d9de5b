import type { CodeEdits } from '../../iac/code-edit.js';
import type { ClusterConfiguration } from '../recommender/recommender.js';

/** What a platform's API says about where a project's configuration lives. */
export interface DeclaredSource {
  /** The job is deployed from code the platform knows of: a Databricks bundle (`deployment.kind = BUNDLE`). */
  deployedFrom: 'bundle' | null;
  /** The platform locks the job against edits outside its code (`edit_mode = UI_LOCKED`). */
  locked: boolean;
  /** The job's `setpoint:source` tag, as written (`<repository>//<path>`). */
  sourceTag: string | null;
}

/**
 * The platform's side of proposals: what its API says about the job's code, a recommendation as edits of
 * the formats it maps to (Terraform, bundle YAML, Airflow DAG), and whether the job now runs a
 * configuration (a merged proposal, deployed), as its apply history records it. The core owns linking, git, the forges and the lifecycle.
 */
export interface PlatformCode {
  declaredSource(projectId: string): Promise<DeclaredSource>;
  edits(projectId: string, configuration: ClusterConfiguration): Promise<CodeEdits>;
  /**
   * When the job now runs `configuration` (a merged proposal, deployed): the cluster as the platform's
   * writer records it, for the apply history; null while it does not.
   */
  deployed(projectId: string, configuration: ClusterConfiguration): Promise<Record<string, unknown> | null>;
}
