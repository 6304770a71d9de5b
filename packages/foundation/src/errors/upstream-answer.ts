import { UpstreamError } from './app-error.js';

/**
 * What reading an answer needs of its schema: a zod schema's `safeParse` (foundation does not depend on
 * zod; any zod schema fits).
 */
export interface AnswerSchema<Answer> {
  safeParse(value: unknown):
    | { success: true; data: Answer }
    | {
        success: false;
        error: { issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }> };
      };
}

/** Who answered, for the error: the code it is raised with and the words that name the call. */
export interface AnswerSource {
  /** The error's stable code, the adapter's own (`DATABRICKS_UNEXPECTED_RESPONSE`). */
  code: string;
  /** The call, as people name it: `Databricks clusters/get`, `EMR Serverless GetJobRun`. */
  call: string;
}

/**
 * An external API's answer checked with its schema at the edge: the parsed value, or an upstream error that
 * names the call, the field and what was wrong with it. Every adapter reads its answers through this one.
 */
export function upstreamAnswer<Answer>(
  schema: AnswerSchema<Answer>,
  value: unknown,
  source: AnswerSource,
): Answer {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? issue.path.map(String).join('.') : 'the top level';
  throw new UpstreamError(
    source.code,
    `${source.call} answered an unexpected shape at ${where}: ${issue?.message ?? 'invalid'}`,
  );
}
