import { parseS3Url, type S3Client } from '@setpoint/foundation/s3';
import { isAccessDenied } from '../api/emr-api-error.js';
import type { EmrClient } from '../api/emr-client.js';
import { eventLogDirOf } from '../collect/event-log-location.js';

export type PermissionUse = 'collect' | 'apply';

export interface PermissionCheck {
  /** The IAM action, e.g. `elasticmapreduce:ListInstances` or `s3:GetObject`. */
  permission: string;
  /** What Setpoint needs it for: reading runs, or applying recommendations to long-running clusters. */
  neededFor: PermissionUse;
  /** `held`, `missing`, or `unknown` when the check itself could not decide (see `detail`). */
  status: 'held' | 'missing' | 'unknown';
  detail: string;
  resource?: string;
}

/**
 * Whether collection can work: every EMR permission it needs is confirmed; an S3 line may stay unknown
 * (an empty bucket). Apply permissions are reported, not required.
 */
export function readyToCollect(checks: readonly PermissionCheck[]): boolean {
  return checks.every(
    (check) =>
      check.neededFor !== 'collect' ||
      (check.permission.startsWith('elasticmapreduce:')
        ? check.status === 'held'
        : check.status !== 'missing'),
  );
}

/** A cluster id that cannot exist: apply permissions are probed on it, so nothing is ever changed. */
export const probeClusterId = 'j-SETPOINTPROBE';

type Client = Pick<
  EmrClient,
  | 'listClusters'
  | 'describeCluster'
  | 'listSteps'
  | 'listInstanceGroups'
  | 'listInstanceFleets'
  | 'listInstances'
  | 'modifyInstanceGroupCount'
  | 'modifyInstanceFleetTargets'
  | 'putManagedScalingPolicy'
>;

/**
 * Checks each permission Setpoint needs, one line each. AWS evaluates permissions before it looks the
 * resource up, so a call on an unknown cluster that fails with "not valid" proves the permission is
 * held; the apply actions are probed only that way, and nothing is changed.
 */
export async function checkEmrAccess(
  client: Client,
  s3: Pick<S3Client, 'list' | 'getObject'> | undefined,
  options: { logLocations?: readonly string[]; recentDays?: number; now?: number } = {},
): Promise<PermissionCheck[]> {
  const checks: PermissionCheck[] = [];
  /** A call on the cluster that does not exist was answered as if it did: the endpoint is not Amazon EMR. */
  let impostor: string | undefined;
  const record = async (
    permission: string,
    neededFor: PermissionUse,
    call: () => Promise<string>,
    resource?: string,
    onProbe = false,
  ) => {
    try {
      const detail = await call();
      if (onProbe) impostor ??= permission;
      checks.push({
        permission,
        neededFor,
        status: onProbe ? 'unknown' : 'held',
        detail: onProbe ? notEmr(permission) : detail,
        ...(resource ? { resource } : {}),
      });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (isAccessDenied(error)) {
        checks.push({
          permission,
          neededFor,
          status: 'missing',
          detail: message,
          ...(resource ? { resource } : {}),
        });
      } else if (/EMR_RESOURCE_NOT_FOUND|EMR_REQUEST_REJECTED/.test(codeOf(error))) {
        checks.push({
          permission,
          neededFor,
          status: 'held',
          detail: 'allowed (probed on a cluster that does not exist)',
          ...(resource ? { resource } : {}),
        });
      } else {
        checks.push({
          permission,
          neededFor,
          status: 'unknown',
          detail: message,
          ...(resource ? { resource } : {}),
        });
      }
    }
  };

  const now = options.now ?? Date.now();
  let sample: string | undefined;
  await record('elasticmapreduce:ListClusters', 'collect', async () => {
    let count = 0;
    for await (const cluster of client.listClusters({
      createdAfter: new Date(now - (options.recentDays ?? 30) * 86_400_000),
    })) {
      sample ??= cluster.Id;
      count += 1;
      if (count >= 50) break;
    }
    return count === 0
      ? 'allowed (no cluster in the last 30 days)'
      : `allowed (${count}${count >= 50 ? '+' : ''} recent clusters)`;
  });
  const target = sample ?? probeClusterId;
  const logLocations = new Set(options.logLocations ?? []);
  const probing = target === probeClusterId;
  await record(
    'elasticmapreduce:DescribeCluster',
    'collect',
    async () => {
      const cluster = await client.describeCluster(target);
      if (cluster.LogUri) logLocations.add(cluster.LogUri);
      const eventLogDir = eventLogDirOf(cluster);
      if (eventLogDir.startsWith('s3://')) logLocations.add(eventLogDir);
      return `allowed (${cluster.Id} ${cluster.Name})`;
    },
    undefined,
    probing,
  );
  await record(
    'elasticmapreduce:ListSteps',
    'collect',
    async () => {
      for await (const _step of client.listSteps(target)) return `allowed on ${target}`;
      return `allowed on ${target}`;
    },
    undefined,
    probing,
  );
  await record(
    'elasticmapreduce:ListInstanceGroups',
    'collect',
    async () => {
      await client.listInstanceGroups(target);
      return `allowed on ${target}`;
    },
    undefined,
    probing,
  );
  await record(
    'elasticmapreduce:ListInstanceFleets',
    'collect',
    async () => {
      await client.listInstanceFleets(target);
      return `allowed on ${target}`;
    },
    undefined,
    probing,
  );
  await record(
    'elasticmapreduce:ListInstances',
    'collect',
    async () => {
      const instances = await client.listInstances(target);
      return `allowed on ${target} (${instances.length} instances)`;
    },
    undefined,
    probing,
  );

  for (const location of [...logLocations].filter((uri) => /^s3[an]?:\/\//.test(uri))) {
    const url = location.replace(/^s3[an]:/, 's3:');
    if (!s3) {
      checks.push({
        permission: 's3:ListBucket',
        neededFor: 'collect',
        status: 'unknown',
        detail: 'no S3 client configured',
        resource: url,
      });
      continue;
    }
    const { bucket, key } = parseS3Url(url);
    let firstKey: string | undefined;
    await record(
      's3:ListBucket',
      'collect',
      async () => {
        const objects = await s3.list(bucket, key);
        firstKey = objects[0]?.key;
        return `allowed on s3://${bucket}/${key} (${objects.length} objects)`;
      },
      url,
    );
    await record(
      's3:GetObject',
      'collect',
      async () => {
        if (!firstKey)
          throw Object.assign(new Error('no object to read under this location yet'), { name: 'Nothing' });
        const body = await s3.getObject(bucket, firstKey);
        body.destroy();
        return `allowed (read s3://${bucket}/${firstKey})`;
      },
      url,
    );
  }

  await record(
    'elasticmapreduce:ModifyInstanceGroups',
    'apply',
    async () => {
      await client.modifyInstanceGroupCount(probeClusterId, 'ig-SETPOINTPROBE', 1);
      return 'allowed';
    },
    undefined,
    true,
  );
  await record(
    'elasticmapreduce:ModifyInstanceFleet',
    'apply',
    async () => {
      await client.modifyInstanceFleetTargets(probeClusterId, 'if-SETPOINTPROBE', { onDemand: 1, spot: 0 });
      return 'allowed';
    },
    undefined,
    true,
  );
  await record(
    'elasticmapreduce:PutManagedScalingPolicy',
    'apply',
    async () => {
      await client.putManagedScalingPolicy(probeClusterId, {
        UnitType: 'Instances',
        MinimumCapacityUnits: 1,
        MaximumCapacityUnits: 2,
      });
      return 'allowed';
    },
    undefined,
    true,
  );
  if (impostor === undefined) return checks;
  // an EMR endpoint that answers for a cluster that does not exist proves nothing it answered
  return checks.map((check) =>
    check.status === 'held' && check.permission.startsWith('elasticmapreduce:')
      ? { ...check, status: 'unknown', detail: notEmr(impostor as string) }
      : check,
  );
}

/** Why no permission is known from an endpoint that answered a call on the cluster that does not exist. */
function notEmr(permission: string): string {
  return `not known: the endpoint answered ${permission} on cluster ${probeClusterId}, which does not exist, as if it did; Amazon EMR refuses such a call, so this endpoint does not behave like EMR`;
}

function codeOf(error: unknown): string {
  return typeof error === 'object' && error !== null && 'code' in error
    ? String((error as { code: unknown }).code)
    : '';
}
