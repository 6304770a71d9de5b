import { z } from 'zod';

/** Columns of the canonical sweep CSV, in the order Setpoint writes them. */
export const sweepColumns = [
  'workload',
  'instance_type',
  'nodes',
  'vcpus_per_node',
  'memory_gib_per_node',
  'price_usd_per_node_hour',
  'runtime_s',
  'completed',
] as const;

const positiveNumber = z.coerce
  .number({ error: 'must be a number' })
  .positive({ error: 'must be greater than 0' });

/** One measured run: `cost = nodes × price × runtime_s / 3600`. */
export const sweepRowSchema = z.object({
  workload: z.string().trim().min(1, { error: 'must not be empty' }),
  instance_type: z.string().trim().min(1, { error: 'must not be empty' }),
  nodes: z.coerce.number({ error: 'must be a number' }).int({ error: 'must be a whole number' }).positive({
    error: 'must be greater than 0',
  }),
  vcpus_per_node: positiveNumber,
  memory_gib_per_node: positiveNumber,
  price_usd_per_node_hour: positiveNumber,
  runtime_s: positiveNumber,
  completed: z
    .string()
    .trim()
    .toLowerCase()
    .pipe(z.enum(['true', 'false'], { error: 'must be true or false' }))
    .transform((value) => value === 'true'),
});

export type SweepCsvRow = z.infer<typeof sweepRowSchema>;
