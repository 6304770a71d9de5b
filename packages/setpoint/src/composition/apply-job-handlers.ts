import type { JobHandlers } from '../queue/job-queue.js';
import { parkWhen } from '../queue/park-refusals.js';
import type { ApplyService } from '../service/apply/apply-service.js';
import { isRefusal } from '../service/jobs/job-refusal.js';
import { legacyApplyJobKinds } from './platforms.js';

/**
 * The apply core's queued jobs. A platform's error or throttling is retried; a refusal (paused, changed
 * outside, not linked, superseded, not ready, a guardrail) will not change on retry: parked, visibly.
 */
export function applyJobHandlers(applies: Pick<ApplyService, 'applyJob' | 'revertJob'>): JobHandlers {
  const handlers: JobHandlers = {
    'project.apply': (payload) => parkWhen(isRefusal, () => applies.applyJob(payload)),
    'project.revert': (intent) => parkWhen(isRefusal, () => applies.revertJob(intent)),
  };
  for (const kind of legacyApplyJobKinds)
    Object.assign(handlers, {
      [kind]: kind.endsWith('.apply') ? handlers['project.apply'] : handlers['project.revert'],
    });
  return handlers;
}
