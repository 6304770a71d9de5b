import { upstreamAnswer } from '@setpoint/foundation/errors';
import type { z } from 'zod';

/** A response that does not match its schema is an upstream error naming the endpoint and field. */
export function parseResponse<Schema extends z.ZodType>(
  schema: Schema,
  value: unknown,
  path: string,
): z.output<Schema> {
  return upstreamAnswer<z.output<Schema>>(schema, value, {
    code: 'DATABRICKS_UNEXPECTED_RESPONSE',
    call: `Databricks ${path}`,
  });
}
