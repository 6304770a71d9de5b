import { z } from 'zod';
import { performanceTargets } from './serverless-tasks.js';

/**
 * A run's serverless tasks (no cluster): the performance mode they ran in and what they cost, as billed or
 * as estimated until the bill arrives (`basis` says which).
 */
export const serverlessReportSchema = z.object({
  performance_target: z.enum(performanceTargets),
  dbus: z.number().nonnegative(),
  usd: z.number().nonnegative(),
  basis: z.string(),
});
export type ServerlessReport = z.infer<typeof serverlessReportSchema>;
