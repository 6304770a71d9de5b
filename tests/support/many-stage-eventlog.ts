/**
 * A Spark event log that is small on the wire and huge once read: `stages` one-task jobs and
 * `sqlExecutions` SQL executions whose stage names and descriptions are `textChars` characters each.
 * Repetitive text compresses ~100× (20,000 + 20,000 at 4 KB ≈ 160 MB of lines, ≈ 1.6 MB of zstd), so
 * every byte limit on the upload and the decompressed log holds; only what the profile keeps of it can
 * grow. Timestamps are those of `tests/fixtures/service/databricks-aws-eventlog`, whose cluster report
 * describes the run.
 */
export interface ManyStageLog {
  stages: number;
  sqlExecutions: number;
  textChars: number;
  /** First event time, epoch ms (the fixture's application start by default). */
  startMs?: number;
}

const fixtureStartMs = 1651187224195;

/** Text of `chars` characters: a repeated query with a few varying column names (so it compresses ~100×, not ~1000×). */
function text(kind: string, index: number, chars: number): string {
  let seed = (index + 1) * 2654435761;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed.toString(36);
  };
  let result = `${kind} ${index} `;
  for (let line = 0; result.length < chars; line++) {
    result += `select a, b, sum(c) from t group by a, b${line % 16 === 0 ? `, c_${next()}` : ''} -- `;
  }
  return result.slice(0, chars);
}

export function manyStageEventLog(shape: ManyStageLog): Buffer {
  const start = shape.startMs ?? fixtureStartMs;
  const lines: string[] = [
    JSON.stringify({ Event: 'SparkListenerLogStart', 'Spark Version': '3.5.1' }),
    JSON.stringify({
      Event: 'SparkListenerApplicationStart',
      'App Name': 'many stages',
      'App ID': 'app-many-stages',
      Timestamp: start,
      User: 'spark',
    }),
    JSON.stringify({
      Event: 'SparkListenerExecutorAdded',
      Timestamp: start + 1,
      'Executor ID': '1',
      'Executor Info': { Host: '10.0.0.1', 'Total Cores': 4 },
    }),
  ];
  let time = start + 10;
  for (let i = 0; i < shape.sqlExecutions; i++) {
    lines.push(
      JSON.stringify({
        Event: 'org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart',
        executionId: i,
        description: text('query', i, shape.textChars),
        details: '',
        physicalPlanDescription: '',
        time,
      }),
      JSON.stringify({
        Event: 'org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd',
        executionId: i,
        time: time + 1,
      }),
    );
    time += 1;
  }
  for (let i = 0; i < shape.stages; i++) {
    const info = {
      'Stage ID': i,
      'Stage Attempt ID': 0,
      'Stage Name': text('stage', i, shape.textChars),
      'Number of Tasks': 1,
      'Parent IDs': [],
      'Submission Time': time,
      'Completion Time': time + 2,
    };
    lines.push(
      JSON.stringify({
        Event: 'SparkListenerJobStart',
        'Job ID': i,
        'Submission Time': time,
        'Stage Infos': [info],
        'Stage IDs': [i],
        Properties: {},
      }),
      JSON.stringify({ Event: 'SparkListenerStageSubmitted', 'Stage Info': info }),
      JSON.stringify({
        Event: 'SparkListenerTaskEnd',
        'Stage ID': i,
        'Stage Attempt ID': 0,
        'Task Type': 'ResultTask',
        'Task End Reason': { Reason: 'Success' },
        'Task Info': {
          'Task ID': i,
          Index: 0,
          Attempt: 0,
          'Launch Time': time,
          'Executor ID': '1',
          Host: '10.0.0.1',
          Speculative: false,
          'Finish Time': time + 2,
          Failed: false,
          Killed: false,
        },
        'Task Metrics': { 'Executor Run Time': 2, 'Executor CPU Time': 1_000_000 },
      }),
      JSON.stringify({ Event: 'SparkListenerStageCompleted', 'Stage Info': info }),
      JSON.stringify({
        Event: 'SparkListenerJobEnd',
        'Job ID': i,
        'Completion Time': time + 2,
        'Job Result': { Result: 'JobSucceeded' },
      }),
    );
    time += 3;
  }
  lines.push(JSON.stringify({ Event: 'SparkListenerApplicationEnd', Timestamp: time + 10 }));
  return Buffer.from(`${lines.join('\n')}\n`);
}

/** A two-stage log starting at `startMs`, each event rewritten by `edit` (times a run cannot have). */
export function twoStageLogAt(
  startMs: number,
  edit: (event: Record<string, unknown>) => void = () => undefined,
): Buffer {
  const lines = manyStageEventLog({ stages: 2, sqlExecutions: 0, textChars: 20, startMs })
    .toString('utf8')
    .trim()
    .split('\n')
    .map((line) => {
      const event = JSON.parse(line) as Record<string, unknown>;
      edit(event);
      return JSON.stringify(event);
    });
  return Buffer.from(`${lines.join('\n')}\n`);
}
