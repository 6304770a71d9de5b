import { z } from 'zod';
import { performanceTargets } from './serverless-tasks.js';

/**
 * A run's serverless tasks (no cluster): the performance mode they ran in and what they cost, as billed or
 * as estimated until the bill arrives (`basis` says which), or pending the bill (`basis` says why).
 */
export const serverlessReportSchema = z.object({
  performance_target: z.enum(performanceTargets),
  dbus: z.number().nonnegative(),
  usd: z.number().nonnegative(),
  basis: z.string(),
  /** Not known yet: no bill and no billed run of the job to estimate from (`dbus`, `usd` are 0, never a cost). */
  pending: z.boolean().optional(),
});
export type ServerlessReport = z.infer<typeof serverlessReportSchema>;
