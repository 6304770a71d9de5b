import {
  DescribeClusterCommand,
  EMRClient,
  GetManagedScalingPolicyCommand,
  ListClustersCommand,
  ListInstanceFleetsCommand,
  ListInstanceGroupsCommand,
  ListInstancesCommand,
  ListStepsCommand,
  ListSupportedInstanceTypesCommand,
  ModifyInstanceFleetCommand,
  ModifyInstanceGroupsCommand,
  PutManagedScalingPolicyCommand,
  RemoveManagedScalingPolicyCommand,
} from '@aws-sdk/client-emr';
import { UpstreamError } from '@setpoint/foundation/errors';
import type { z } from 'zod';
import { describeEmrError } from './emr-api-error.js';
import {
  type AwsCredentialIdentityProvider,
  awsClientConfig,
  credentialProvider,
  type EmrConnection,
  type NodeAgents,
} from './emr-connection.js';
import {
  type Cluster,
  type ClusterSummary,
  type ComputeLimits,
  clusterSchema,
  clusterSummarySchema,
  computeLimitsSchema,
  type Instance,
  type InstanceFleet,
  type InstanceGroup,
  type InstanceRole,
  instanceFleetSchema,
  instanceGroupSchema,
  instanceSchema,
  type StepSummary,
  stepSummarySchema,
  supportedInstanceTypeSchema,
} from './schema.js';
import {
  instanceFleetTargetsRequest,
  instanceGroupCountRequest,
  managedScalingRequest,
} from './write-requests.js';

/** A page's items cap: a runaway `Marker` loop stops here rather than spinning forever. */
const maxPages = 1_000;

/** An answer checked with its zod schema; a shape Setpoint does not expect is an upstream error naming where. */
export function validated<Schema extends z.ZodType>(
  schema: Schema,
  value: unknown,
  operation: string,
  service = 'EMR',
): z.output<Schema> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new UpstreamError(
    'EMR_UNEXPECTED_RESPONSE',
    `${service} ${operation} answered an unexpected shape at ${issue?.path.join('.') || '(root)'}: ${issue?.message}`,
  );
}

export interface ListClustersFilter {
  createdAfter?: Date | undefined;
  createdBefore?: Date | undefined;
  states?: readonly string[] | undefined;
}

/**
 * The EMR API as Setpoint uses it, over the AWS SDK for JavaScript v3: paginated lists as async
 * iterables, every answer validated with its zod schema, every failure through one error map.
 */
export class EmrClient {
  readonly sdk: EMRClient;

  constructor(
    readonly connection: EmrConnection,
    credentials: AwsCredentialIdentityProvider = credentialProvider(connection),
    /** The service passes its SSRF-guarded agents: the endpoint is user input. */
    agents?: NodeAgents,
  ) {
    this.sdk = new EMRClient(awsClientConfig(connection, credentials, agents));
  }

  close(): void {
    this.sdk.destroy();
  }

  async *listClusters(filter: ListClustersFilter = {}): AsyncGenerator<ClusterSummary> {
    for await (const output of this.#pages('ListClusters', (marker) =>
      this.sdk.send(
        new ListClustersCommand({
          ...(filter.createdAfter ? { CreatedAfter: filter.createdAfter } : {}),
          ...(filter.createdBefore ? { CreatedBefore: filter.createdBefore } : {}),
          ...(filter.states ? { ClusterStates: [...filter.states] as never } : {}),
          ...(marker ? { Marker: marker } : {}),
        }),
      ),
    ))
      for (const cluster of output.Clusters ?? [])
        yield validated(clusterSummarySchema, cluster, 'ListClusters');
  }

  async describeCluster(clusterId: string): Promise<Cluster> {
    const output = await this.#send('DescribeCluster', () =>
      this.sdk.send(new DescribeClusterCommand({ ClusterId: clusterId })),
    );
    return validated(clusterSchema, output.Cluster, 'DescribeCluster');
  }

  /** The cluster's steps, newest first (EMR's order). */
  async *listSteps(clusterId: string): AsyncGenerator<StepSummary> {
    for await (const output of this.#pages('ListSteps', (marker) =>
      this.sdk.send(new ListStepsCommand({ ClusterId: clusterId, ...(marker ? { Marker: marker } : {}) })),
    ))
      for (const step of output.Steps ?? []) yield validated(stepSummarySchema, step, 'ListSteps');
  }

  async listInstanceGroups(clusterId: string): Promise<InstanceGroup[]> {
    const groups: InstanceGroup[] = [];
    for await (const output of this.#pages('ListInstanceGroups', (marker) =>
      this.sdk.send(
        new ListInstanceGroupsCommand({ ClusterId: clusterId, ...(marker ? { Marker: marker } : {}) }),
      ),
    ))
      for (const group of output.InstanceGroups ?? [])
        groups.push(validated(instanceGroupSchema, group, 'ListInstanceGroups'));
    return groups;
  }

  async listInstanceFleets(clusterId: string): Promise<InstanceFleet[]> {
    const fleets: InstanceFleet[] = [];
    for await (const output of this.#pages('ListInstanceFleets', (marker) =>
      this.sdk.send(
        new ListInstanceFleetsCommand({ ClusterId: clusterId, ...(marker ? { Marker: marker } : {}) }),
      ),
    ))
      for (const fleet of output.InstanceFleets ?? [])
        fleets.push(validated(instanceFleetSchema, fleet, 'ListInstanceFleets'));
    return fleets;
  }

  async listInstances(clusterId: string, roles?: readonly InstanceRole[]): Promise<Instance[]> {
    const instances: Instance[] = [];
    for await (const output of this.#pages('ListInstances', (marker) =>
      this.sdk.send(
        new ListInstancesCommand({
          ClusterId: clusterId,
          ...(roles ? { InstanceGroupTypes: [...roles] } : {}),
          ...(marker ? { Marker: marker } : {}),
        }),
      ),
    ))
      for (const instance of output.Instances ?? [])
        instances.push(validated(instanceSchema, instance, 'ListInstances'));
    return instances;
  }

  /** The instance types an EMR release supports in the client's region (`ListSupportedInstanceTypes`). */
  async supportedInstanceTypes(releaseLabel: string): Promise<Set<string>> {
    const types = new Set<string>();
    for await (const output of this.#pages('ListSupportedInstanceTypes', (marker) =>
      this.sdk.send(
        new ListSupportedInstanceTypesCommand({
          ReleaseLabel: releaseLabel,
          ...(marker ? { Marker: marker } : {}),
        }),
      ),
    ))
      for (const type of output.SupportedInstanceTypes ?? [])
        types.add(validated(supportedInstanceTypeSchema, type, 'ListSupportedInstanceTypes').Type);
    return types;
  }

  async modifyInstanceGroupCount(clusterId: string, instanceGroupId: string, count: number): Promise<void> {
    const { input } = instanceGroupCountRequest(clusterId, instanceGroupId, count);
    await this.#send('ModifyInstanceGroups', () => this.sdk.send(new ModifyInstanceGroupsCommand(input)));
  }

  async modifyInstanceFleetTargets(
    clusterId: string,
    instanceFleetId: string,
    targets: { onDemand: number; spot: number },
  ): Promise<void> {
    const { input } = instanceFleetTargetsRequest(clusterId, instanceFleetId, targets);
    await this.#send('ModifyInstanceFleet', () => this.sdk.send(new ModifyInstanceFleetCommand(input)));
  }

  async getManagedScalingPolicy(clusterId: string): Promise<ComputeLimits | null> {
    const output = await this.#send('GetManagedScalingPolicy', () =>
      this.sdk.send(new GetManagedScalingPolicyCommand({ ClusterId: clusterId })),
    );
    const limits = output.ManagedScalingPolicy?.ComputeLimits;
    return limits ? validated(computeLimitsSchema, limits, 'GetManagedScalingPolicy') : null;
  }

  async putManagedScalingPolicy(clusterId: string, limits: ComputeLimits): Promise<void> {
    const { input } = managedScalingRequest(clusterId, limits);
    await this.#send('PutManagedScalingPolicy', () =>
      this.sdk.send(new PutManagedScalingPolicyCommand(input)),
    );
  }

  async removeManagedScalingPolicy(clusterId: string): Promise<void> {
    await this.#send('RemoveManagedScalingPolicy', () =>
      this.sdk.send(new RemoveManagedScalingPolicyCommand({ ClusterId: clusterId })),
    );
  }

  /** Every page of a `Marker`-paginated call, each through the one error map. */
  async *#pages<Output extends { Marker?: string | undefined }>(
    operation: string,
    fetch: (marker: string | undefined) => Promise<Output>,
  ): AsyncGenerator<Output> {
    let marker: string | undefined;
    for (let page = 0; page < maxPages; page += 1) {
      const output = await this.#send(operation, () => fetch(marker));
      yield output;
      marker = output.Marker;
      if (!marker) return;
    }
  }

  async #send<T>(operation: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw describeEmrError(error, operation);
    }
  }
}
