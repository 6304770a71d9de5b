/** Events the aggregator reads. Everything else is skipped from its `"Event":"…"` prefix alone. */
export const handledEvents = {
  logStart: 'SparkListenerLogStart',
  databricksMetadata: 'DBCEventLoggingListenerMetadata',
  applicationStart: 'SparkListenerApplicationStart',
  applicationEnd: 'SparkListenerApplicationEnd',
  environmentUpdate: 'SparkListenerEnvironmentUpdate',
  executorAdded: 'SparkListenerExecutorAdded',
  executorRemoved: 'SparkListenerExecutorRemoved',
  blockManagerAdded: 'SparkListenerBlockManagerAdded',
  jobStart: 'SparkListenerJobStart',
  jobEnd: 'SparkListenerJobEnd',
  stageSubmitted: 'SparkListenerStageSubmitted',
  stageCompleted: 'SparkListenerStageCompleted',
  taskEnd: 'SparkListenerTaskEnd',
  sqlExecutionStart: 'org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart',
  sqlExecutionEnd: 'org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd',
} as const;

/** Spark and platform events that are known but not needed; anything outside both lists is "unknown". */
const knownSkippedEvents = [
  'SparkListenerTaskStart',
  'SparkListenerTaskGettingResult',
  'SparkListenerBlockManagerRemoved',
  'SparkListenerBlockUpdated',
  'SparkListenerExecutorMetricsUpdate',
  'SparkListenerStageExecutorMetrics',
  'SparkListenerUnpersistRDD',
  'SparkListenerResourceProfileAdded',
  'org.apache.spark.sql.execution.ui.SparkListenerSQLAdaptiveExecutionUpdate',
  'org.apache.spark.sql.execution.ui.SparkListenerSQLAdaptiveSQLMetricUpdates',
  'org.apache.spark.sql.execution.ui.SparkListenerDriverAccumUpdates',
  'org.apache.spark.sql.execution.ui.SparkListenerQueryExecutionMetrics',
  'org.apache.spark.sql.execution.ui.SparkListenerEffectiveSQLConf',
];

const knownSkippedPrefixes = [
  'org.apache.spark.scheduler.SparkListener',
  'org.apache.spark.sql.streaming.StreamingQueryListener$',
  'org.apache.spark.sql.catalyst.catalog.',
  'org.apache.spark.sql.execution.ui.',
];

const handledNames = new Set<string>(Object.values(handledEvents));
const skippedNames = new Set<string>(knownSkippedEvents);

export function isHandledEvent(name: string): boolean {
  return handledNames.has(name);
}

export function isKnownEvent(name: string): boolean {
  return (
    handledNames.has(name) ||
    skippedNames.has(name) ||
    knownSkippedPrefixes.some((prefix) => name.startsWith(prefix))
  );
}
