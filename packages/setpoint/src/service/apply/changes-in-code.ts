/** What became of a change to a project whose configuration lives in code. */
export interface CodeHandoff {
  /** The proposal opened or updated; null when the code already says what the recommendation says. */
  proposalId: string | null;
  /** One line for the person who asked: the pull request, or why there was nothing to propose. */
  message: string;
}

/**
 * Where a project's changes go when its configuration lives in code (Terraform, a bundle, an Airflow DAG):
 * the apply core asks before it queues a write, and the change becomes the project's proposal there instead
 * (`service/code` answers). The writer of such a project refuses `locate`, so nothing else writes it either.
 */
export interface ChangesInCode {
  /**
   * Null when the project's cluster is written through its platform's API. Otherwise the change is handed to
   * the code: a person gets the proposal, or the refusal thrown (`CONFIGURATION_IN_CODE` when the proposal
   * cannot be made, naming the code and `setpoint iac propose`; `DEPLOYED_FROM_CODE` when the platform says
   * the job is deployed from code nobody linked); an automatic change is audited instead of thrown.
   */
  handOff(
    projectId: string,
    recommendationId: string,
    options: { actor: string; automatic: boolean },
  ): Promise<CodeHandoff | null>;
}
