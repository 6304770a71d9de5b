import { UpstreamError } from '@setpoint/foundation/errors';
import type { z } from 'zod';

/** A response that does not match its schema is an upstream error naming the endpoint and field. */
export function parseResponse<Schema extends z.ZodType>(
  schema: Schema,
  value: unknown,
  path: string,
): z.output<Schema> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const where = issue?.path.length ? issue.path.join('.') : 'body';
  throw new UpstreamError(
    'DATABRICKS_UNEXPECTED_RESPONSE',
    `Databricks ${path} answered an unexpected shape at ${where}: ${issue?.message ?? 'invalid'}`,
  );
}
