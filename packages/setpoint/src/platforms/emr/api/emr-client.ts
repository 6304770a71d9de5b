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
import { awsRequests } from './aws-requests.js';
import { emrService } from './emr-api-error.js';
import {
  type AwsCallLimits,
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

const emr = awsRequests(emrService);
const nextMarker = (output: { Marker?: string | undefined }) => output.Marker;

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
    /** Shorter than the usual ones for a sign-in (one attempt, the sign-in's limit). */
    limits?: AwsCallLimits,
  ) {
    this.sdk = new EMRClient(awsClientConfig(connection, credentials, agents, limits));
  }

  close(): void {
    this.sdk.destroy();
  }

  async *listClusters(filter: ListClustersFilter = {}): AsyncGenerator<ClusterSummary> {
    for await (const output of emr.pages(
      'ListClusters',
      (marker) =>
        this.sdk.send(
          new ListClustersCommand({
            ...(filter.createdAfter ? { CreatedAfter: filter.createdAfter } : {}),
            ...(filter.createdBefore ? { CreatedBefore: filter.createdBefore } : {}),
            ...(filter.states ? { ClusterStates: [...filter.states] as never } : {}),
            ...(marker ? { Marker: marker } : {}),
          }),
        ),
      nextMarker,
    ))
      for (const cluster of output.Clusters ?? [])
        yield emr.validated(clusterSummarySchema, cluster, 'ListClusters');
  }

  async describeCluster(clusterId: string): Promise<Cluster> {
    const output = await emr.send('DescribeCluster', () =>
      this.sdk.send(new DescribeClusterCommand({ ClusterId: clusterId })),
    );
    return emr.validated(clusterSchema, output.Cluster, 'DescribeCluster');
  }

  /** The cluster's steps, newest first (EMR's order). */
  async *listSteps(clusterId: string): AsyncGenerator<StepSummary> {
    for await (const output of emr.pages(
      'ListSteps',
      (marker) =>
        this.sdk.send(new ListStepsCommand({ ClusterId: clusterId, ...(marker ? { Marker: marker } : {}) })),
      nextMarker,
    ))
      for (const step of output.Steps ?? []) yield emr.validated(stepSummarySchema, step, 'ListSteps');
  }

  async listInstanceGroups(clusterId: string): Promise<InstanceGroup[]> {
    const groups: InstanceGroup[] = [];
    for await (const output of emr.pages(
      'ListInstanceGroups',
      (marker) =>
        this.sdk.send(
          new ListInstanceGroupsCommand({ ClusterId: clusterId, ...(marker ? { Marker: marker } : {}) }),
        ),
      nextMarker,
    ))
      for (const group of output.InstanceGroups ?? [])
        groups.push(emr.validated(instanceGroupSchema, group, 'ListInstanceGroups'));
    return groups;
  }

  async listInstanceFleets(clusterId: string): Promise<InstanceFleet[]> {
    const fleets: InstanceFleet[] = [];
    for await (const output of emr.pages(
      'ListInstanceFleets',
      (marker) =>
        this.sdk.send(
          new ListInstanceFleetsCommand({ ClusterId: clusterId, ...(marker ? { Marker: marker } : {}) }),
        ),
      nextMarker,
    ))
      for (const fleet of output.InstanceFleets ?? [])
        fleets.push(emr.validated(instanceFleetSchema, fleet, 'ListInstanceFleets'));
    return fleets;
  }

  async listInstances(clusterId: string, roles?: readonly InstanceRole[]): Promise<Instance[]> {
    const instances: Instance[] = [];
    for await (const output of emr.pages(
      'ListInstances',
      (marker) =>
        this.sdk.send(
          new ListInstancesCommand({
            ClusterId: clusterId,
            ...(roles ? { InstanceGroupTypes: [...roles] } : {}),
            ...(marker ? { Marker: marker } : {}),
          }),
        ),
      nextMarker,
    ))
      for (const instance of output.Instances ?? [])
        instances.push(emr.validated(instanceSchema, instance, 'ListInstances'));
    return instances;
  }

  /** The instance types an EMR release supports in the client's region (`ListSupportedInstanceTypes`). */
  async supportedInstanceTypes(releaseLabel: string): Promise<Set<string>> {
    const types = new Set<string>();
    for await (const output of emr.pages(
      'ListSupportedInstanceTypes',
      (marker) =>
        this.sdk.send(
          new ListSupportedInstanceTypesCommand({
            ReleaseLabel: releaseLabel,
            ...(marker ? { Marker: marker } : {}),
          }),
        ),
      nextMarker,
    ))
      for (const type of output.SupportedInstanceTypes ?? [])
        types.add(emr.validated(supportedInstanceTypeSchema, type, 'ListSupportedInstanceTypes').Type);
    return types;
  }

  async modifyInstanceGroupCount(clusterId: string, instanceGroupId: string, count: number): Promise<void> {
    const { input } = instanceGroupCountRequest(clusterId, instanceGroupId, count);
    await emr.send('ModifyInstanceGroups', () => this.sdk.send(new ModifyInstanceGroupsCommand(input)));
  }

  async modifyInstanceFleetTargets(
    clusterId: string,
    instanceFleetId: string,
    targets: { onDemand: number; spot: number },
  ): Promise<void> {
    const { input } = instanceFleetTargetsRequest(clusterId, instanceFleetId, targets);
    await emr.send('ModifyInstanceFleet', () => this.sdk.send(new ModifyInstanceFleetCommand(input)));
  }

  async getManagedScalingPolicy(clusterId: string): Promise<ComputeLimits | null> {
    const output = await emr.send('GetManagedScalingPolicy', () =>
      this.sdk.send(new GetManagedScalingPolicyCommand({ ClusterId: clusterId })),
    );
    const limits = output.ManagedScalingPolicy?.ComputeLimits;
    return limits ? emr.validated(computeLimitsSchema, limits, 'GetManagedScalingPolicy') : null;
  }

  async putManagedScalingPolicy(clusterId: string, limits: ComputeLimits): Promise<void> {
    const { input } = managedScalingRequest(clusterId, limits);
    await emr.send('PutManagedScalingPolicy', () => this.sdk.send(new PutManagedScalingPolicyCommand(input)));
  }

  async removeManagedScalingPolicy(clusterId: string): Promise<void> {
    await emr.send('RemoveManagedScalingPolicy', () =>
      this.sdk.send(new RemoveManagedScalingPolicyCommand({ ClusterId: clusterId })),
    );
  }
}
