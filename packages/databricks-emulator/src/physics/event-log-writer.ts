import type { ClusterSimulation, SimulationIdentity, TaskRecord } from './simulation-types.js';

/** One event-log line with the simulated time it was written at (for hourly rolling and partial delivery). */
export interface EventLogEntry {
  timeMs: number;
  line: string;
}

const sparkVersionByRuntime: Array<[RegExp, string]> = [
  [/^1[0-2]\./, '3.3.2'],
  [/^13\./, '3.4.1'],
  [/^1[45]\./, '3.5.0'],
  [/^16\./, '3.5.2'],
  [/^17\./, '4.0.0'],
];

export function sparkVersionFor(databricksRuntime: string): string {
  for (const [pattern, version] of sparkVersionByRuntime) if (pattern.test(databricksRuntime)) return version;
  return '3.5.0';
}

/**
 * The Databricks header line. `SparkContext Id` is an int64 beyond 2^53, so it is written as raw digits,
 * exactly as the real service writes it; JSON.stringify cannot express that.
 */
export function databricksMetadataLine(
  sparkVersion: string,
  timestampMs: number,
  rolloverNumber: number,
  sparkContextId: string,
): string {
  return `{"Event":"DBCEventLoggingListenerMetadata","Spark Version":${JSON.stringify(sparkVersion)},"Timestamp":${timestampMs},"Rollover Number":${rolloverNumber},"SparkContext Id":${sparkContextId}}`;
}

function taskInfo(task: TaskRecord, startMs: number, finished: boolean): Record<string, unknown> {
  return {
    'Task ID': task.taskId,
    Index: task.index,
    Attempt: task.attempt,
    'Partition ID': task.index,
    'Launch Time': startMs + task.launchMs,
    'Executor ID': task.executorId,
    Host: task.host,
    Locality: task.shuffleMap ? 'PROCESS_LOCAL' : 'NODE_LOCAL',
    Speculative: false,
    'Getting Result Time': 0,
    'Finish Time': finished ? startMs + task.finishMs : 0,
    Failed: finished && (task.end === 'OutOfMemory' || task.end === 'ExecutorLost'),
    Killed: false,
    Accumulables: [],
  };
}

function taskEndReason(task: TaskRecord): Record<string, unknown> {
  if (task.end === 'OutOfMemory') {
    return {
      Reason: 'ExceptionFailure',
      'Class Name': 'java.lang.OutOfMemoryError',
      Description: 'Java heap space',
      'Stack Trace': [
        {
          'Declaring Class': 'org.apache.spark.unsafe.memory.HeapMemoryAllocator',
          'Method Name': 'allocate',
          'File Name': 'HeapMemoryAllocator.java',
          'Line Number': 118,
        },
      ],
      'Full Stack Trace': 'java.lang.OutOfMemoryError: Java heap space',
      'Accumulator Updates': [],
    };
  }
  if (task.end === 'ExecutorLost') {
    return {
      Reason: 'ExecutorLostFailure',
      'Executor ID': task.executorId,
      'Exit Caused By App': false,
      'Loss Reason': 'Executor decommission: spot instance reclaimed',
    };
  }
  return { Reason: 'Success' };
}

function taskMetrics(task: TaskRecord): Record<string, unknown> {
  const m = task.metrics;
  return {
    'Executor Deserialize Time': m.deserializeMs,
    'Executor Deserialize CPU Time': m.deserializeMs * 600_000,
    'Executor Run Time': m.runMs,
    'Executor CPU Time': m.cpuNs,
    'Peak Execution Memory': m.peakExecutionMemory,
    'Result Size': m.resultSize,
    'JVM GC Time': m.gcMs,
    'Result Serialization Time': 0,
    'Memory Bytes Spilled': m.memorySpilled,
    'Disk Bytes Spilled': m.diskSpilled,
    'Shuffle Read Metrics': {
      'Remote Blocks Fetched':
        m.shuffleRemoteBytes > 0 ? Math.max(1, Math.round(m.shuffleRemoteBytes / 4e6)) : 0,
      'Local Blocks Fetched':
        m.shuffleLocalBytes > 0 ? Math.max(1, Math.round(m.shuffleLocalBytes / 4e6)) : 0,
      'Fetch Wait Time': m.shuffleFetchWaitMs,
      'Remote Bytes Read': m.shuffleRemoteBytes,
      'Remote Bytes Read To Disk': 0,
      'Local Bytes Read': m.shuffleLocalBytes,
      'Total Records Read': m.shuffleRecordsRead,
      'Remote Requests Duration': Math.round(m.shuffleFetchWaitMs * 0.8),
      'Push Based Shuffle': {
        'Corrupt Merged Block Chunks': 0,
        'Merged Fetch Fallback Count': 0,
        'Merged Remote Blocks Fetched': 0,
        'Merged Local Blocks Fetched': 0,
        'Merged Remote Chunks Fetched': 0,
        'Merged Local Chunks Fetched': 0,
        'Merged Remote Bytes Read': 0,
        'Merged Local Bytes Read': 0,
        'Merged Remote Requests Duration': 0,
      },
    },
    'Shuffle Write Metrics': {
      'Shuffle Bytes Written': m.shuffleWriteBytes,
      'Shuffle Write Time': m.shuffleWriteNs,
      'Shuffle Records Written': m.shuffleRecordsWritten,
    },
    'Input Metrics': { 'Bytes Read': m.inputBytes, 'Records Read': m.inputRecords },
    'Output Metrics': { 'Bytes Written': m.outputBytes, 'Records Written': m.outputRecords },
    'Updated Blocks': [],
  };
}

function physicalPlan(photon: boolean, stageNames: string[]): string {
  const operators = photon
    ? ['PhotonResultStage', 'PhotonShuffleExchangeSource', 'PhotonShuffleExchangeSink', 'PhotonScan parquet']
    : ['WholeStageCodegen (2)', 'Exchange hashpartitioning', 'WholeStageCodegen (1)', 'FileScan parquet'];
  const tree = operators.map(
    (operator, depth) => `${'   '.repeat(depth)}${depth === 0 ? '' : '+- '}${operator}`,
  );
  return [
    '== Physical Plan ==',
    'AdaptiveSparkPlan isFinalPlan=true',
    ...tree,
    '',
    `-- ${stageNames.join(', ')}`,
  ].join('\n');
}

const executorMetricNames = [
  'JVMHeapMemory',
  'JVMOffHeapMemory',
  'OnHeapExecutionMemory',
  'OffHeapExecutionMemory',
  'OnHeapStorageMemory',
  'OffHeapStorageMemory',
  'OnHeapUnifiedMemory',
  'OffHeapUnifiedMemory',
  'DirectPoolMemory',
  'MappedPoolMemory',
  'ProcessTreeJVMVMemory',
  'ProcessTreeJVMRSSMemory',
  'ProcessTreePythonVMemory',
  'ProcessTreePythonRSSMemory',
  'ProcessTreeOtherVMemory',
  'ProcessTreeOtherRSSMemory',
  'MinorGCCount',
  'MinorGCTime',
  'MajorGCCount',
  'MajorGCTime',
  'TotalGCTime',
  'ConcurrentGCCount',
  'ConcurrentGCTime',
] as const;

function taskExecutorMetrics(task: TaskRecord): Record<string, number> {
  const peak = task.metrics.peakExecutionMemory;
  const values: Partial<Record<(typeof executorMetricNames)[number], number>> = {
    JVMHeapMemory: 400 * 1024 * 1024 + peak,
    JVMOffHeapMemory: 180 * 1024 * 1024,
    OnHeapExecutionMemory: peak,
    OnHeapUnifiedMemory: peak,
    DirectPoolMemory: 16 * 1024 * 1024,
    MinorGCCount: 1 + Math.round(task.metrics.gcMs / 40),
    MinorGCTime: task.metrics.gcMs,
    TotalGCTime: task.metrics.gcMs,
  };
  return Object.fromEntries(executorMetricNames.map((name) => [name, values[name] ?? 0]));
}

function stageInfo(
  stage: ClusterSimulation['stages'][number],
  startMs: number,
  completed: boolean,
): Record<string, unknown> {
  return {
    'Stage ID': stage.stageId,
    'Stage Attempt ID': 0,
    'Stage Name': stage.name,
    'Number of Tasks': stage.tasks,
    'RDD Info': [
      {
        'RDD ID': stage.stageId * 3,
        Name: `MapPartitionsRDD`,
        Scope: `{"id":"${stage.stageId}","name":"WholeStageCodegen"}`,
        Callsite: stage.name,
        'Parent IDs': [],
        'Storage Level': {
          'Use Disk': false,
          'Use Memory': false,
          'Use Off Heap': false,
          Deserialized: false,
          Replication: 1,
        },
        Barrier: false,
        DeterministicLevel: 'DETERMINATE',
        'Number of Partitions': stage.tasks,
        'Number of Cached Partitions': 0,
        'Memory Size': 0,
        'Disk Size': 0,
      },
    ],
    'Parent IDs': stage.parentIds,
    Details: `org.apache.spark.sql.execution.SparkPlan.executeQuery(${stage.name})`,
    'Submission Time': startMs + stage.submittedMs,
    ...(completed ? { 'Completion Time': startMs + stage.completedMs } : {}),
    ...(completed && stage.failureReason ? { 'Failure Reason': stage.failureReason } : {}),
    Accumulables: [],
    'Resource Profile Id': 0,
    'Shuffle Push Enabled': false,
    'Shuffle Push Mergers Count': 0,
  };
}

/** From the last Spark job's end to `SparkListenerApplicationEnd` when `spark-submit` exits on YARN. */
export const yarnShutdownMs = 3_000;

function clusterUsageTags(sim: ClusterSimulation, identity: SimulationIdentity): Record<string, string> {
  const spec = sim.spec;
  const workers = spec.workers;
  const azure = spec.nodeType.cloud === 'Azure';
  const availability = azure
    ? { ON_DEMAND: 'ON_DEMAND_AZURE', SPOT: 'SPOT_AZURE', SPOT_WITH_FALLBACK: 'SPOT_WITH_FALLBACK_AZURE' }[
        spec.availability
      ]
    : spec.availability;
  const tags: Record<string, string> = {
    'spark.databricks.clusterUsageTags.clusterId': identity.clusterId,
    'spark.databricks.clusterUsageTags.clusterName': identity.clusterName,
    'spark.databricks.clusterUsageTags.clusterNodeType': spec.nodeType.nodeTypeId,
    'spark.databricks.clusterUsageTags.driverNodeType': spec.driverNodeType.nodeTypeId,
    'spark.databricks.clusterUsageTags.clusterWorkers': String(
      workers.kind === 'fixed' ? workers.count : workers.min,
    ),
    'spark.databricks.clusterUsageTags.clusterTargetWorkers': String(
      workers.kind === 'fixed' ? workers.count : workers.min,
    ),
    'spark.databricks.clusterUsageTags.clusterScalingType':
      workers.kind === 'fixed' ? 'fixed_size' : 'autoscaling',
    'spark.databricks.clusterUsageTags.cloudProvider': spec.nodeType.cloud,
    'spark.databricks.clusterUsageTags.region': identity.region,
    'spark.databricks.clusterUsageTags.dataPlaneRegion': identity.region,
    'spark.databricks.clusterUsageTags.sparkVersion': spec.sparkVersion,
    'spark.databricks.clusterUsageTags.effectiveSparkVersion': spec.sparkVersion,
    'spark.databricks.clusterUsageTags.runtimeEngine': spec.photon ? 'PHOTON' : 'STANDARD',
    'spark.databricks.clusterUsageTags.clusterSku': 'STANDARD_SKU',
    'spark.databricks.clusterUsageTags.clusterFirstOnDemand': String(spec.firstOnDemand),
    'spark.databricks.clusterUsageTags.clusterAvailability': availability,
    'spark.databricks.clusterUsageTags.clusterSpotBidPricePercent': '100',
    'spark.databricks.clusterUsageTags.clusterEbsVolumeType': spec.ebs.type,
    'spark.databricks.clusterUsageTags.clusterEbsVolumeSize': String(spec.ebs.sizeGb),
    'spark.databricks.clusterUsageTags.clusterEbsVolumeCount': String(spec.ebs.count),
    'spark.databricks.clusterUsageTags.enableElasticDisk': 'false',
    'spark.databricks.clusterUsageTags.clusterOwnerOrgId': identity.workspaceId,
    'spark.databricks.clusterUsageTags.autoTerminationMinutes': '0',
    'spark.databricks.clusterUsageTags.clusterLogDeliveryEnabled': 'true',
    'spark.databricks.clusterUsageTags.driverContainerPrivateIp': identity.driverIp,
    'spark.databricks.clusterUsageTags.clusterAllTags': '*********(redacted)',
  };
  if (workers.kind === 'autoscale') {
    tags['spark.databricks.clusterUsageTags.clusterMinWorkers'] = String(workers.min);
    tags['spark.databricks.clusterUsageTags.clusterMaxWorkers'] = String(workers.max);
  }
  return tags;
}

interface Timed {
  timeMs: number;
  order: number;
  event: Record<string, unknown>;
}

/**
 * Who ran the application: a Databricks cluster (standalone master, `clusterUsageTags`, the job's
 * tags on every Spark job), or Spark on YARN as EMR runs a step (`spark-submit`; the application id is
 * YARN's, the name is the step's).
 */
export type EventLogFlavor =
  | { kind: 'databricks' }
  | { kind: 'yarn'; appName: string; appId: string; sparkVersion: string };

/**
 * Renders a simulated cluster session as the event log Spark writes on Databricks (without the
 * `DBCEventLoggingListenerMetadata` header: log delivery adds one per rolled part), or as plain Spark
 * on YARN writes it.
 */
export function renderEventLog(
  sim: ClusterSimulation,
  identity: SimulationIdentity,
  clusterRequestedAtMs: number,
  flavor: EventLogFlavor = { kind: 'databricks' },
): EventLogEntry[] {
  const t0 = clusterRequestedAtMs;
  const spec = sim.spec;
  const yarn = flavor.kind === 'yarn' ? flavor : undefined;
  const sparkVersion = yarn?.sparkVersion ?? sparkVersionFor(spec.sparkVersion);
  const appStart = t0 + sim.clusterReadyMs - 20_000;
  const appId =
    yarn?.appId ?? `app-${new Date(appStart).toISOString().replace(/[-:T]/g, '').slice(0, 14)}-0000`;
  const appName = yarn?.appName ?? 'Databricks Shell';
  const timed: Timed[] = [];
  const add = (timeMs: number, order: number, event: Record<string, unknown>) =>
    timed.push({ timeMs, order, event });
  add(appStart, 0, { Event: 'SparkListenerLogStart', 'Spark Version': sparkVersion });
  add(appStart, 1, {
    Event: 'SparkListenerResourceProfileAdded',
    'Resource Profile Id': 0,
    'Executor Resource Requests': {
      cores: { 'Resource Name': 'cores', Amount: spec.nodeType.cores, 'Discovery Script': '', Vendor: '' },
      memory: {
        'Resource Name': 'memory',
        Amount: Math.round(spec.nodeType.memoryMb * 0.72 - 1024),
        'Discovery Script': '',
        Vendor: '',
      },
    },
    'Task Resource Requests': { cpus: { 'Resource Name': 'cpus', Amount: 1 } },
  });
  add(appStart, 2, {
    Event: 'SparkListenerBlockManagerAdded',
    'Block Manager ID': { 'Executor ID': 'driver', Host: identity.driverIp, Port: 40_001 },
    'Maximum Memory': Math.round(spec.driverNodeType.memoryMb * 1024 * 1024 * 0.3),
    Timestamp: appStart,
  });
  const sparkProperties: Record<string, string> = {
    'spark.app.id': appId,
    'spark.app.name': appName,
    'spark.app.startTime': String(appStart),
    'spark.master': yarn ? 'yarn' : `spark://${identity.driverIp}:7077`,
    'spark.executor.memory': `${Math.round(spec.nodeType.memoryMb * 0.72 - 1024)}m`,
    'spark.executor.cores': String(spec.nodeType.cores),
    'spark.driver.host': identity.driverIp,
    'spark.sql.shuffle.partitions': '200',
    ...(yarn
      ? { 'spark.submit.deployMode': 'cluster', 'spark.eventLog.enabled': 'true' }
      : { 'spark.databricks.photon.enabled': String(spec.photon), ...clusterUsageTags(sim, identity) }),
    ...spec.sparkConf,
  };
  add(appStart, 3, {
    Event: 'SparkListenerEnvironmentUpdate',
    'JVM Information': {
      'Java Home': '/usr/lib/jvm/zulu17',
      'Java Version': '17.0.12 (Azul Systems, Inc.)',
      'Scala Version': 'version 2.12.15',
    },
    'Spark Properties': sparkProperties,
    'Hadoop Properties': { 'fs.s3a.connection.maximum': '200' },
    'System Properties': { 'java.vendor': 'Azul Systems, Inc.', 'user.name': 'root' },
    'Metrics Properties': {},
    'Classpath Entries': {},
  });
  add(appStart, 4, {
    Event: 'SparkListenerApplicationStart',
    'App Name': appName,
    'App ID': appId,
    Timestamp: appStart,
    User: 'root',
  });
  for (const executor of sim.executors) {
    add(t0 + executor.addedMs, 5, {
      Event: 'SparkListenerExecutorAdded',
      Timestamp: t0 + executor.addedMs,
      'Executor ID': executor.executorId,
      'Executor Info': {
        Host: executor.host,
        'Total Cores': executor.cores,
        'Log Urls': {},
        Attributes: {},
        Resources: {},
        'Resource Profile Id': 0,
        'Registration Time': t0 + executor.addedMs,
      },
    });
    add(t0 + executor.addedMs, 6, {
      Event: 'SparkListenerBlockManagerAdded',
      'Block Manager ID': { 'Executor ID': executor.executorId, Host: executor.host, Port: 40_100 },
      'Maximum Memory': Math.round(spec.nodeType.memoryMb * 1024 * 1024 * 0.4),
      Timestamp: t0 + executor.addedMs,
    });
    if (executor.removedMs !== undefined && executor.removedMs < sim.terminatingMs) {
      add(t0 + executor.removedMs, 1, {
        Event: 'SparkListenerExecutorRemoved',
        Timestamp: t0 + executor.removedMs,
        'Executor ID': executor.executorId,
        'Removed Reason': executor.removedReason ?? 'Executor lost',
      });
    }
  }
  const stagesById = new Map(sim.stages.map((stage) => [stage.stageId, stage]));
  for (const job of sim.jobs) {
    const jobStages = job.stageIds.map((id) => stagesById.get(id)).filter((stage) => stage !== undefined);
    const properties: Record<string, string> = {
      'spark.job.description': job.description,
      'spark.jobGroup.id': `${identity.runId ?? 'run'}_${job.segment}`,
    };
    if (!yarn) {
      properties['spark.databricks.clusterUsageTags.clusterId'] = identity.clusterId;
      if (identity.jobId) properties['spark.databricks.job.id'] = identity.jobId;
      if (identity.runId) properties['spark.databricks.job.runId'] = identity.runId;
    }
    // Every job of a DataFrame/SQL workload runs inside an SQL execution, as on Databricks.
    properties['spark.sql.execution.id'] = String(job.jobId);
    add(t0 + job.submittedMs - 40, 7, {
      Event: 'org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart',
      executionId: job.jobId,
      rootExecutionId: job.jobId,
      description: job.description,
      details: job.description,
      physicalPlanDescription: physicalPlan(
        spec.photon,
        jobStages.map((stage) => stage.name),
      ),
      sparkPlanInfo: {
        nodeName: spec.photon ? 'PhotonResultStage' : 'WholeStageCodegen (1)',
        simpleString: spec.photon ? 'PhotonResultStage' : 'WholeStageCodegen (1)',
        children: [],
        metadata: {},
        metrics: [],
      },
      time: t0 + job.submittedMs - 40,
      modifiedConfigs: {},
      jobTags: [],
    });
    add(t0 + job.completedMs + 15, 14, {
      Event: 'org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd',
      executionId: job.jobId,
      time: t0 + job.completedMs + 15,
      errorMessage: job.succeeded ? '' : (job.failureMessage ?? 'Job failed'),
    });
    add(t0 + job.submittedMs, 7, {
      Event: 'SparkListenerJobStart',
      'Job ID': job.jobId,
      'Submission Time': t0 + job.submittedMs,
      'Stage Infos': jobStages.map((stage) => stageInfo(stage, t0, false)),
      'Stage IDs': job.stageIds,
      Properties: properties,
    });
    for (const stage of jobStages) {
      add(t0 + stage.submittedMs, 8, {
        Event: 'SparkListenerStageSubmitted',
        'Stage Info': stageInfo(stage, t0, false),
        Properties: properties,
      });
      add(t0 + stage.completedMs, 12, {
        Event: 'SparkListenerStageCompleted',
        'Stage Info': stageInfo(stage, t0, true),
      });
    }
    add(t0 + job.completedMs, 13, {
      Event: 'SparkListenerJobEnd',
      'Job ID': job.jobId,
      'Completion Time': t0 + job.completedMs,
      'Job Result': job.succeeded
        ? { Result: 'JobSucceeded' }
        : {
            Result: 'JobFailed',
            Exception: { Message: job.failureMessage ?? 'Job failed', 'Stack Trace': [] },
          },
    });
  }
  for (const task of sim.tasks) {
    add(t0 + task.launchMs, 9, {
      Event: 'SparkListenerTaskStart',
      'Stage ID': task.stageId,
      'Stage Attempt ID': 0,
      'Task Info': taskInfo(task, t0, false),
    });
    add(t0 + task.finishMs, 10, {
      Event: 'SparkListenerTaskEnd',
      'Stage ID': task.stageId,
      'Stage Attempt ID': 0,
      'Task Type': task.shuffleMap ? 'ShuffleMapTask' : 'ResultTask',
      'Task End Reason': taskEndReason(task),
      'Task Info': taskInfo(task, t0, true),
      'Task Executor Metrics': taskExecutorMetrics(task),
      'Task Metrics': taskMetrics(task),
    });
  }
  // On YARN the application ends with the step; a Databricks cluster's SparkContext lives until it terminates.
  const appEnd = t0 + (yarn ? sim.executionEndMs + yarnShutdownMs : sim.terminatingMs);
  add(appEnd, 20, { Event: 'SparkListenerApplicationEnd', Timestamp: appEnd });
  timed.sort((a, b) => a.timeMs - b.timeMs || a.order - b.order);
  return timed.map((entry) => ({ timeMs: entry.timeMs, line: JSON.stringify(entry.event) }));
}
