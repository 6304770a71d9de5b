import type { RevertIntent } from './revert-job.js';

declare module '../../queue/job-queue.js' {
  interface JobPayloads {
    /** Write a recommendation into the project's cluster, on whatever platform the project is. */
    'project.apply': {
      projectId: string;
      recommendationId: string;
      actor: string;
      kind: 'apply' | 'auto-apply';
      /** When a person asked for it: a change Setpoint wrote since makes the request stale. */
      requestedAt?: number | undefined;
      /** When a person approved this learning run (apply mode `approve-learning`; `actor` is who). */
      approvedAt?: number | undefined;
    };
    /**
     * Undo one change Setpoint made (`configId`), back to `toConfigId` when given, after the SLA guard found a
     * bad run on it; retried until recorded.
     */
    'project.revert': RevertIntent;
  }
}

/** The queued job kinds of the apply core (declared up front, like the pipeline's). */
export const applyJobKinds = ['project.apply', 'project.revert'] as const;

/** The idempotency key of an automatic apply: one job per recommendation. */
export const autoApplyJobKey = (recommendationId: string) => `project.apply:${recommendationId}`;

/** The idempotency key of an approved learning run's write: one job per approval. */
export const approvedApplyJobKey = (recommendationId: string) => `project.apply:${recommendationId}:approved`;

/** The idempotency key of a person's apply: one job per request. */
export const requestedApplyJobKey = (recommendationId: string, at: number) =>
  `project.apply:${recommendationId}:${at}`;
