/**
 * Shapes of the Spark listener events Setpoint reads (JsonProtocol.scala, Spark 1.x–4.x).
 * Every field is optional because versions differ and real logs are damaged; unknown fields are
 * dropped. TaskEnd, the one event that is most of a log, is read by `task-end-reader.ts` instead of
 * a schema, for speed; `taskEndSchema` documents it and tests check the reader against it.
 */
import { z } from 'zod';

const stringMap = z.record(z.string(), z.unknown()).transform((map) => {
  const strings: Record<string, string> = {};
  for (const [key, value] of Object.entries(map)) {
    if (typeof value === 'string') strings[key] = value;
    else if (typeof value === 'number' || typeof value === 'boolean') strings[key] = String(value);
  }
  return strings;
});

/** Ids, times and counts: safe integers (a damaged log can hold 1E309 or 1.5, which no Spark writes). */
const int = z.number().int();
const nonNegativeInt = int.nonnegative();
const text = z.string();

export const logStartSchema = z.object({ 'Spark Version': text.optional() });

export const databricksMetadataSchema = z.object({
  'Spark Version': text.optional(),
  Timestamp: int.optional(),
  'Rollover Number': int.optional(),
});

export const applicationStartSchema = z.object({
  'App Name': text.optional(),
  'App ID': text.optional(),
  Timestamp: int.optional(),
  User: text.optional(),
  'App Attempt ID': text.optional(),
});

export const applicationEndSchema = z.object({ Timestamp: int.optional(), ExitCode: int.optional() });

export const environmentUpdateSchema = z.object({
  'Spark Properties': stringMap.optional(),
  'System Properties': stringMap.optional(),
  'Hadoop Properties': stringMap.optional(),
});

export const executorAddedSchema = z.object({
  Timestamp: int.optional(),
  'Executor ID': text,
  'Executor Info': z.object({ Host: text.optional(), 'Total Cores': nonNegativeInt.optional() }).optional(),
});

export const executorRemovedSchema = z.object({
  Timestamp: int.optional(),
  'Executor ID': text,
  'Removed Reason': text.optional(),
});

export const blockManagerAddedSchema = z.object({
  Timestamp: int.optional(),
  'Block Manager ID': z.object({ 'Executor ID': text, Host: text.optional() }),
});

export const stageInfoSchema = z.object({
  'Stage ID': int,
  'Stage Attempt ID': int.optional(),
  'Stage Name': text.optional(),
  'Number of Tasks': nonNegativeInt.optional(),
  'Parent IDs': z.array(int).optional(),
  'Submission Time': int.optional(),
  'Completion Time': int.optional(),
  'Failure Reason': text.optional(),
});

export const jobStartSchema = z.object({
  'Job ID': int,
  'Submission Time': int.optional(),
  'Stage Infos': z.array(stageInfoSchema).optional(),
  'Stage IDs': z.array(int).optional(),
  Properties: stringMap.optional(),
});

export const jobEndSchema = z.object({
  'Job ID': int,
  'Completion Time': int.optional(),
  'Job Result': z.object({ Result: text.optional() }).optional(),
});

export const stageEventSchema = z.object({ 'Stage Info': stageInfoSchema });

export const sqlExecutionStartSchema = z.object({
  executionId: int,
  description: text.optional(),
  time: int.optional(),
});

export const sqlExecutionEndSchema = z.object({
  executionId: int,
  time: int.optional(),
  errorMessage: text.optional(),
});

const optionalCount = int.optional();

export const taskMetricsSchema = z.object({
  'Executor Deserialize Time': optionalCount,
  'Executor Deserialize CPU Time': optionalCount,
  'Executor Run Time': optionalCount,
  'Executor CPU Time': optionalCount,
  'Peak Execution Memory': optionalCount,
  'Result Size': optionalCount,
  'JVM GC Time': optionalCount,
  'Result Serialization Time': optionalCount,
  'Memory Bytes Spilled': optionalCount,
  'Disk Bytes Spilled': optionalCount,
  'Shuffle Read Metrics': z
    .object({
      'Remote Bytes Read': optionalCount,
      'Local Bytes Read': optionalCount,
      'Fetch Wait Time': optionalCount,
      'Total Records Read': optionalCount,
    })
    .optional(),
  'Shuffle Write Metrics': z
    .object({
      'Shuffle Bytes Written': optionalCount,
      'Shuffle Write Time': optionalCount,
      'Shuffle Records Written': optionalCount,
    })
    .optional(),
  'Input Metrics': z.object({ 'Bytes Read': optionalCount, 'Records Read': optionalCount }).optional(),
  'Output Metrics': z.object({ 'Bytes Written': optionalCount, 'Records Written': optionalCount }).optional(),
});

export const taskEndSchema = z.object({
  'Stage ID': int,
  'Stage Attempt ID': int.optional(),
  'Task End Reason': z.object({ Reason: text.optional() }).optional(),
  'Task Info': z.object({
    'Task ID': int.optional(),
    'Launch Time': int.optional(),
    'Finish Time': int.optional(),
    'Executor ID': text.optional(),
    Host: text.optional(),
    Speculative: z.boolean().optional(),
    Failed: z.boolean().optional(),
    Killed: z.boolean().optional(),
  }),
  'Task Metrics': taskMetricsSchema.optional(),
});

export type StageInfoEvent = z.infer<typeof stageInfoSchema>;
