import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { gunzipSync } from 'node:zlib';
import { NotFoundError, ValidationError } from '@setpoint/foundation/errors';
import { parseS3Url, type S3Client } from '@setpoint/foundation/s3';
import type { EmrClient } from '../api/emr-client.js';
import type { Cluster, ComputeLimits, StepSummary } from '../api/schema.js';
import {
  type EmrClusterShape,
  type EmrComputeLimits,
  shapeFromInstanceFleets,
  shapeFromInstanceGroups,
  volumesFor,
} from '../cluster-shape/emr-cluster-shape.js';
import { isSparkStep } from '../discovery/discover.js';
import type { EmrRunReport } from '../runs/emr-run-report.js';
import { applicationIdFromStepLog, requireS3EventLogDir, stepStderrUrl } from './event-log-location.js';

type Client = Pick<
  EmrClient,
  | 'describeCluster'
  | 'listSteps'
  | 'listInstanceGroups'
  | 'listInstanceFleets'
  | 'listInstances'
  | 'getManagedScalingPolicy'
>;
type S3 = Pick<S3Client, 'getObject' | 'list'>;

export interface CollectedStep {
  report: EmrRunReport;
  /** The event log's S3 objects (one file, or the parts of a rolling log). */
  eventLogObjects: string[];
}

async function readAll(s3: S3, url: string): Promise<Buffer> {
  const { bucket, key } = parseS3Url(url);
  const chunks: Buffer[] = [];
  for await (const chunk of await s3.getObject(bucket, key)) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

function limitsOf(limits: ComputeLimits | null): EmrComputeLimits | null {
  if (!limits) return null;
  return {
    unitType: limits.UnitType,
    minimum: limits.MinimumCapacityUnits,
    maximum: limits.MaximumCapacityUnits,
    ...(limits.MaximumOnDemandCapacityUnits === undefined
      ? {}
      : { maximumOnDemand: limits.MaximumOnDemandCapacityUnits }),
    ...(limits.MaximumCoreCapacityUnits === undefined
      ? {}
      : { maximumCore: limits.MaximumCoreCapacityUnits }),
  };
}

/** The cluster's shape now: its instance groups or fleets and its managed-scaling limits (when readable). */
export async function clusterShapeOf(client: Client, cluster: Cluster): Promise<EmrClusterShape> {
  const limits = limitsOf(await client.getManagedScalingPolicy(cluster.Id).catch(() => null));
  return cluster.InstanceCollectionType === 'INSTANCE_FLEET'
    ? shapeFromInstanceFleets(await client.listInstanceFleets(cluster.Id), limits)
    : shapeFromInstanceGroups(await client.listInstanceGroups(cluster.Id), limits);
}

/**
 * Everything about one step run: the cluster, its shape, every instance with its own timeline, and where
 * its event log is (the YARN application named in the step's stderr, under `spark.eventLog.dir`).
 * Fails clearly when the logs are out of reach (on HDFS, or no `LogUri` to find the application by).
 */
export async function collectEmrStep(
  client: Client,
  s3: S3,
  target: { region: string; clusterId: string; stepId: string },
): Promise<CollectedStep> {
  const { cluster, report } = await describeEmrStep(client, target);
  return locateEventLog(s3, cluster, report);
}

/** The step run without its event log: cluster, step, shape and every instance's timeline. */
export async function describeEmrStep(
  client: Client,
  target: { region: string; clusterId: string; stepId: string },
): Promise<{ cluster: Cluster; report: EmrRunReport }> {
  const cluster = await client.describeCluster(target.clusterId);
  let step: StepSummary | undefined;
  let sparkSteps = 0;
  for await (const candidate of client.listSteps(target.clusterId)) {
    if (isSparkStep(candidate)) sparkSteps += 1;
    if (candidate.Id === target.stepId) step = candidate;
  }
  if (!step)
    throw new NotFoundError('EMR_STEP_NOT_FOUND', `cluster ${target.clusterId} has no step ${target.stepId}`);
  const shape = await clusterShapeOf(client, cluster);
  const instances = await client.listInstances(cluster.Id);
  const roleOf = new Map<string, 'MASTER' | 'CORE' | 'TASK'>();
  if (shape.kind === 'instance-groups') {
    for (const group of await client.listInstanceGroups(cluster.Id))
      roleOf.set(group.Id, group.InstanceGroupType);
  } else {
    for (const fleet of await client.listInstanceFleets(cluster.Id))
      roleOf.set(fleet.Id, fleet.InstanceFleetType);
  }
  const transient = cluster.AutoTerminate ?? false;
  const report: EmrRunReport = {
    platform: 'emr',
    region: target.region,
    cluster: {
      id: cluster.Id,
      name: cluster.Name,
      releaseLabel: cluster.ReleaseLabel ?? null,
      transient,
      logUri: cluster.LogUri ?? null,
      tags: Object.fromEntries((cluster.Tags ?? []).map((tag) => [tag.Key ?? '', tag.Value ?? ''])),
      createdAt: cluster.Status.Timeline.createdAt,
      readyAt: cluster.Status.Timeline.readyAt,
      endedAt: cluster.Status.Timeline.endedAt,
      state: cluster.Status.State,
      rootVolumeGb: null,
    },
    step: {
      id: step.Id,
      name: step.Name,
      state: step.Status.State,
      startedAt: step.Status.Timeline.startedAt,
      endedAt: step.Status.Timeline.endedAt,
    },
    shape,
    instances: instances.flatMap((instance) => {
      const role = roleOf.get(instance.InstanceGroupId ?? instance.InstanceFleetId ?? '');
      const createdAt = instance.Status.Timeline.createdAt;
      if (!role || createdAt === null) return [];
      return [
        {
          id: instance.Id,
          role,
          instanceType: instance.InstanceType,
          market: instance.Market ?? 'ON_DEMAND',
          createdAt,
          endedAt: instance.Status.Timeline.endedAt,
          volumes: volumesFor(shape, { role, instanceType: instance.InstanceType }),
          privateIp: instance.PrivateIpAddress ?? null,
          privateDnsName: instance.PrivateDnsName ?? null,
        },
      ];
    }),
    // A cluster launched for this one Spark step costs its whole life; a shared one, the step's share.
    scope: transient && sparkSteps === 1 ? 'cluster' : 'step',
    eventLog: { location: null, applicationId: null },
  };
  return { cluster, report };
}

/**
 * Where the step's event log is: the YARN application its stderr names, under the cluster's
 * `spark.eventLog.dir` on S3. Fails with the reason (and the fix) when it cannot be read.
 */
export async function locateEventLog(s3: S3, cluster: Cluster, report: EmrRunReport): Promise<CollectedStep> {
  const step = report.step;
  const eventLogDir = requireS3EventLogDir(cluster);
  if (!cluster.LogUri?.match(/^s3[an]?:\/\//))
    throw new ValidationError(
      'EMR_STEP_LOGS_UNAVAILABLE',
      `cluster ${cluster.Id} has no S3 LogUri, so the YARN application of step ${step.id} cannot be found; launch the cluster with LogUri=s3://<bucket>/emr-logs/`,
    );
  const stderrUrl = stepStderrUrl(cluster.LogUri, cluster.Id, step.id);
  const applicationId = applicationIdFromStepLog(gunzipSync(await readAll(s3, stderrUrl)).toString('utf8'));
  if (!applicationId)
    throw new ValidationError(
      'EMR_STEP_NOT_SPARK',
      `${stderrUrl} names no YARN application: step ${step.id} did not run Spark on YARN`,
    );
  const { bucket, key } = parseS3Url(eventLogDir);
  const prefix = key === '' ? '' : `${key}/`;
  const objects = [
    ...(await s3.list(bucket, `${prefix}${applicationId}`)),
    ...(await s3.list(bucket, `${prefix}eventlog_v2_${applicationId}/`)),
  ]
    .map((object) => object.key)
    .filter((objectKey) => new RegExp(`(^|/)(eventlog_v2_)?${applicationId}([._/]|$)`).test(objectKey));
  if (objects.length === 0)
    throw new NotFoundError(
      'EMR_EVENT_LOG_NOT_FOUND',
      `no event log for ${applicationId} under ${eventLogDir} (step ${step.id}); it may not have been uploaded yet`,
    );
  const located: EmrRunReport = {
    ...report,
    eventLog: { location: `s3://${bucket}/${objects[0]}`, applicationId },
  };
  return { report: located, eventLogObjects: objects.map((objectKey) => `s3://${bucket}/${objectKey}`) };
}

/** Downloads the event-log objects into a directory (names kept), for the event-log reader. */
export async function downloadEventLog(
  s3: S3,
  objects: readonly string[],
  directory: string,
): Promise<string[]> {
  await mkdir(directory, { recursive: true });
  const files: string[] = [];
  for (const url of objects) {
    const { bucket, key } = parseS3Url(url);
    const file = path.join(directory, path.basename(key));
    await pipeline(await s3.getObject(bucket, key), createWriteStream(file));
    files.push(file);
  }
  return files;
}
