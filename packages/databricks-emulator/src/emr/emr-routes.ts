import type { EmrOperation } from '@setpoint/validity/emr';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { clusterStateAt, stepStateAt } from './emr-cluster.js';
import type { EmrEngine } from './emr-engine.js';
import { EmrApiError, emrError } from './emr-errors.js';
import {
  addJobFlowStepsSchema,
  clusterIdSchema,
  describeClusterSchema,
  listByClusterSchema,
  listClustersSchema,
  listInstancesSchema,
  listStepsSchema,
  listSupportedInstanceTypesSchema,
  modifyInstanceFleetSchema,
  modifyInstanceGroupsSchema,
  putManagedScalingPolicySchema,
  runJobFlowSchema,
  terminateJobFlowsSchema,
} from './emr-requests.js';
import { type EmrRefusal, refuseInvalidEmrRequest } from './emr-validity.js';
import {
  clusterSummaryView,
  clusterView,
  instanceFleetView,
  instanceGroupView,
  instanceView,
  stepView,
  supportedInstanceTypeView,
} from './emr-views.js';

export interface EmrFaceOptions {
  region: string;
  /** Actions (e.g. `ListInstances`) the caller is denied, answered with AccessDeniedException. */
  deniedActions?: readonly string[];
  /**
   * The emulator's fault rules (`/emulator/admin/faults`): an `http` rule matching `POST /ElasticMapReduce.<Op>`
   * answers that operation with its status (500: InternalServerError, 429: ThrottlingException), before the
   * operation runs or, with `afterHandler`, after it changed the cluster (a lost response).
   */
  faults?: EmrFaults;
  /** Where a request refused for breaking a validity rule is remembered (`/emulator/admin/refusals`). */
  rememberRefusal?: (refusal: EmrRefusal) => void;
}

/** The part of the emulator's fault injector the EMR face uses (`server/faults.ts`). */
export interface EmrFaults {
  take(
    kind: 'http',
    subject: string,
    method?: string,
  ): { status?: number; afterHandler: boolean } | undefined;
}

/** Items per page of the List* calls (EMR pages ListClusters and ListSteps by 50). */
export const emrPageSize = 50;

function parse<Schema extends z.ZodType>(schema: Schema, body: unknown): z.output<Schema> {
  const parsed = schema.safeParse(body ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
  throw emrError(
    'ValidationException',
    `1 validation error detected: ${where}${issue?.message ?? 'malformed request'}`,
  );
}

function page<T>(items: T[], marker: string | undefined): { items: T[]; Marker?: string } {
  const start = marker === undefined ? 0 : Number.parseInt(marker, 10);
  if (!Number.isInteger(start) || start < 0 || start > items.length)
    throw emrError('InvalidRequestException', 'The marker is not valid.');
  const end = start + emrPageSize;
  return { items: items.slice(start, end), ...(end < items.length ? { Marker: String(end) } : {}) };
}

const sigV4 =
  /^AWS4-HMAC-SHA256 Credential=([^/,\s]+)\/\d{8}\/([a-z0-9-]+)\/([a-z0-9-]+)\/aws4_request,\s*SignedHeaders=[^,]+,\s*Signature=[0-9a-f]{64}$/;

/**
 * Reads the SigV4 `Authorization` header as EMR does before anything else: it must be present, well
 * formed and scoped to `elasticmapreduce`. The signature itself is not verified (the emulator holds
 * no secrets), which is what "SigV4 headers accepted" means here.
 */
function checkSignature(request: FastifyRequest): void {
  const header = request.headers.authorization;
  if (typeof header !== 'string' || header === '')
    throw emrError('MissingAuthenticationTokenException', 'Missing Authentication Token', 403);
  const match = sigV4.exec(header);
  if (!match || typeof request.headers['x-amz-date'] !== 'string')
    throw emrError(
      'SerializationException',
      'Authorization header is not a valid AWS Signature Version 4 header.',
      400,
    );
  if (match[3] !== 'elasticmapreduce')
    throw emrError(
      'InvalidRequestException',
      `Credential should be scoped to correct service: 'elasticmapreduce'.`,
      403,
    );
}

function sendEmr(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  return reply.code(status).type('application/x-amz-json-1.1').send(JSON.stringify(body));
}

type Operation = (body: unknown) => unknown;

/** The error an injected fault answers with, as EMR names it. */
function faultError(status: number): EmrApiError {
  return status === 429
    ? new EmrApiError('ThrottlingException', 'Rate exceeded (injected fault).', 400)
    : new EmrApiError('InternalServerError', 'Internal error (injected fault).', status);
}

/**
 * The EMR face of the emulator: AWS JSON 1.1 over `POST /` with `X-Amz-Target: ElasticMapReduce.<Op>`,
 * as the AWS SDKs call `elasticmapreduce.<region>.amazonaws.com`.
 */
export function registerEmrRoutes(app: FastifyInstance, engine: EmrEngine, options: EmrFaceOptions): void {
  const region = options.region;
  const denied = new Set(options.deniedActions ?? []);
  const validated = (operation: EmrOperation, body: unknown) =>
    refuseInvalidEmrRequest(engine, region, operation, body, options.rememberRefusal ?? (() => {}));
  const operations: Record<string, Operation> = {
    RunJobFlow: (body) => {
      validated('RunJobFlow', body);
      const cluster = engine.runJobFlow(parse(runJobFlowSchema, body));
      return { JobFlowId: cluster.id, ClusterArn: cluster.arn };
    },
    DescribeCluster: (body) => {
      const cluster = engine.cluster(parse(describeClusterSchema, body).ClusterId);
      return { Cluster: clusterView(cluster, engine.now, region) };
    },
    ListClusters: (body) => {
      const input = parse(listClustersSchema, body);
      const now = engine.now;
      const clusters = [...engine.clusters.values()]
        .filter(
          (cluster) => input.CreatedAfter === undefined || cluster.createdAtMs >= input.CreatedAfter * 1000,
        )
        .filter(
          (cluster) => input.CreatedBefore === undefined || cluster.createdAtMs <= input.CreatedBefore * 1000,
        )
        .filter(
          (cluster) => !input.ClusterStates || input.ClusterStates.includes(clusterStateAt(cluster, now)),
        )
        .sort((a, b) => b.createdAtMs - a.createdAtMs);
      const { items, Marker } = page(clusters, input.Marker);
      return {
        Clusters: items.map((cluster) => clusterSummaryView(cluster, now)),
        ...(Marker ? { Marker } : {}),
      };
    },
    ListSupportedInstanceTypes: (body) => {
      const input = parse(listSupportedInstanceTypesSchema, body);
      if (!/^emr-\d+\.\d+\.\d+$/.test(input.ReleaseLabel))
        throw emrError('ValidationException', `The release label ${input.ReleaseLabel} is not valid.`);
      const { items, Marker } = page(engine.supportedInstanceTypes(), input.Marker);
      return { SupportedInstanceTypes: items.map(supportedInstanceTypeView), ...(Marker ? { Marker } : {}) };
    },
    ListSteps: (body) => {
      const input = parse(listStepsSchema, body);
      const cluster = engine.cluster(input.ClusterId);
      const now = engine.now;
      const steps = [...cluster.steps]
        .reverse()
        .filter((step) => !input.StepIds || input.StepIds.includes(step.id))
        .filter((step) => !input.StepStates || input.StepStates.includes(stepStateAt(step, now)));
      const { items, Marker } = page(steps, input.Marker);
      return { Steps: items.map((step) => stepView(step, now)), ...(Marker ? { Marker } : {}) };
    },
    DescribeStep: (body) => {
      const input = parse(clusterIdSchema.extend({ StepId: clusterIdSchema.shape.ClusterId }), body);
      const step = engine.cluster(input.ClusterId).steps.find((candidate) => candidate.id === input.StepId);
      if (!step) throw emrError('InvalidRequestException', `Step id '${input.StepId}' is not valid.`);
      return { Step: stepView(step, engine.now) };
    },
    AddJobFlowSteps: (body) => {
      const input = parse(addJobFlowStepsSchema, body);
      return { StepIds: engine.addSteps(input.JobFlowId, input.Steps).map((step) => step.id) };
    },
    ListInstanceGroups: (body) => {
      const input = parse(listByClusterSchema, body);
      const cluster = engine.cluster(input.ClusterId);
      if (cluster.collectionType !== 'INSTANCE_GROUP')
        throw emrError(
          'InvalidRequestException',
          'Instance groups are not available for clusters with instance fleets.',
        );
      const { items, Marker } = page(cluster.groups, input.Marker);
      return {
        InstanceGroups: items.map((group) => instanceGroupView(cluster, group, engine.now)),
        ...(Marker ? { Marker } : {}),
      };
    },
    ListInstanceFleets: (body) => {
      const input = parse(listByClusterSchema, body);
      const cluster = engine.cluster(input.ClusterId);
      if (cluster.collectionType !== 'INSTANCE_FLEET')
        throw emrError(
          'InvalidRequestException',
          'Instance fleets are not available for clusters with instance groups.',
        );
      const { items, Marker } = page(cluster.fleets, input.Marker);
      return {
        InstanceFleets: items.map((fleet) => instanceFleetView(cluster, fleet, engine.now)),
        ...(Marker ? { Marker } : {}),
      };
    },
    ListInstances: (body) => {
      const input = parse(listInstancesSchema, body);
      const cluster = engine.cluster(input.ClusterId);
      const now = engine.now;
      const views = cluster.instances
        .filter((instance) => instance.createdAtMs <= now)
        .filter((instance) => !input.InstanceGroupId || instance.groupId === input.InstanceGroupId)
        .filter((instance) => !input.InstanceFleetId || instance.fleetId === input.InstanceFleetId)
        .filter((instance) => !input.InstanceGroupTypes || input.InstanceGroupTypes.includes(instance.role))
        .filter((instance) => !input.InstanceFleetType || input.InstanceFleetType === instance.role)
        .map((instance) => instanceView(cluster, instance, now, region))
        .filter((view) => !input.InstanceStates || input.InstanceStates.includes(view.Status.State));
      const { items, Marker } = page(views, input.Marker);
      return { Instances: items, ...(Marker ? { Marker } : {}) };
    },
    ModifyInstanceGroups: (body) => {
      validated('ModifyInstanceGroups', body);
      const input = parse(modifyInstanceGroupsSchema, body);
      for (const group of input.InstanceGroups)
        if (group.InstanceCount !== undefined)
          engine.modifyInstanceGroup(input.ClusterId, group.InstanceGroupId, group.InstanceCount);
      return {};
    },
    ModifyInstanceFleet: (body) => {
      validated('ModifyInstanceFleet', body);
      const input = parse(modifyInstanceFleetSchema, body);
      engine.modifyInstanceFleet(input.ClusterId, input.InstanceFleet.InstanceFleetId, {
        onDemand: input.InstanceFleet.TargetOnDemandCapacity,
        spot: input.InstanceFleet.TargetSpotCapacity,
      });
      return {};
    },
    PutManagedScalingPolicy: (body) => {
      validated('PutManagedScalingPolicy', body);
      const input = parse(putManagedScalingPolicySchema, body);
      engine.putManagedScaling(input.ClusterId, input.ManagedScalingPolicy.ComputeLimits);
      return {};
    },
    GetManagedScalingPolicy: (body) => {
      const limits = engine.cluster(parse(clusterIdSchema, body).ClusterId).managedScaling;
      return limits ? { ManagedScalingPolicy: { ComputeLimits: limits } } : {};
    },
    RemoveManagedScalingPolicy: (body) => {
      engine.removeManagedScaling(parse(clusterIdSchema, body).ClusterId);
      return {};
    },
    TerminateJobFlows: (body) => {
      for (const id of parse(terminateJobFlowsSchema, body).JobFlowIds) engine.terminate(id);
      return {};
    },
  };

  app.addContentTypeParser('application/x-amz-json-1.1', { parseAs: 'string' }, (_request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    try {
      done(null, text.trim() === '' ? {} : JSON.parse(text));
    } catch {
      done(emrError('SerializationException', 'Request body is not valid JSON.'), undefined);
    }
  });

  app.post('/', async (request, reply) => {
    const target = request.headers['x-amz-target'];
    try {
      if (typeof target !== 'string' || !target.startsWith('ElasticMapReduce.'))
        throw emrError('UnknownOperationException', 'Missing or unknown X-Amz-Target header.');
      checkSignature(request);
      const name = target.slice('ElasticMapReduce.'.length);
      const operation = operations[name];
      if (!operation)
        throw emrError('UnknownOperationException', `Operation ${name} is not supported by the emulator.`);
      if (denied.has(name))
        throw emrError(
          'AccessDeniedException',
          `User: arn:aws:iam::000000000000:user/setpoint is not authorized to perform: elasticmapreduce:${name}`,
        );
      engine.catchUp();
      const fault = options.faults?.take('http', `/ElasticMapReduce.${name}`, 'POST');
      if (fault?.status && !fault.afterHandler) throw faultError(fault.status);
      const result = operation(request.body);
      engine.catchUp();
      if (fault?.status) throw faultError(fault.status);
      return sendEmr(reply, 200, result);
    } catch (error) {
      if (error instanceof EmrApiError) {
        reply.header('x-amzn-errortype', error.type);
        return sendEmr(reply, error.status, { __type: error.type, Message: error.message });
      }
      throw error;
    }
  });
}
