import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { findNodeType } from '../physics/node-types.js';
import { invalidParameter, resourceMissing } from './api-errors.js';
import type { EmulatorContext } from './emulator-context.js';
import type { InstancePoolRecord, PolicyRecord } from './emulator-state.js';
import { parseWith, type RouteKit, registerApi } from './route-kit.js';
import { workspaceUser } from './workspace-user.js';

const createPolicyBodySchema = z.looseObject({
  name: z.string().min(1),
  definition: z.string().optional(),
  description: z.string().optional(),
});

const createPoolBodySchema = z.looseObject({
  instance_pool_name: z.string().min(1),
  node_type_id: z.string().min(1),
  min_idle_instances: z.number().int().nonnegative().optional(),
  max_capacity: z.number().int().positive().optional(),
  aws_attributes: z.looseObject({}).optional(),
  azure_attributes: z.looseObject({}).optional(),
});

function policyJson(policy: PolicyRecord): Record<string, unknown> {
  return {
    policy_id: policy.policyId,
    name: policy.name,
    definition: policy.definition,
    ...(policy.description ? { description: policy.description } : {}),
    creator_user_name: workspaceUser.userName,
    created_at_timestamp: policy.createdAtMs,
    is_default: false,
  };
}

function poolJson(pool: InstancePoolRecord): Record<string, unknown> {
  return {
    instance_pool_id: pool.instancePoolId,
    instance_pool_name: pool.name,
    node_type_id: pool.nodeTypeId,
    min_idle_instances: pool.minIdleInstances,
    ...(pool.maxCapacity === undefined ? {} : { max_capacity: pool.maxCapacity }),
    ...(pool.awsAttributes ? { aws_attributes: pool.awsAttributes } : {}),
    ...(pool.azureAttributes ? { azure_attributes: pool.azureAttributes } : {}),
    state: 'ACTIVE',
    default_tags: { Vendor: 'Databricks', DatabricksInstancePoolId: pool.instancePoolId },
  };
}

/** Hex ids in the shapes Databricks uses: policies `ABC123…` (16), pools `0101-120000-abcd123-pool-…`. */
function newId(context: EmulatorContext, length: number): string {
  return context.state.allocateObjectId().toString(16).toUpperCase().padStart(length, '0').slice(-length);
}

/**
 * Compute policies (`/api/2.0/policies/clusters/*`: create, get, list, delete; the definition is a JSON
 * text of rules by attribute path) and instance pools (`/api/2.0/instance-pools/*`: create, get, list).
 * Job clusters naming a policy are checked against it on create, update and reset (`policy-rules.ts`).
 */
export function registerComputeRoutes(app: FastifyInstance, kit: RouteKit, context: EmulatorContext): void {
  const { state, clock } = context;

  registerApi(app, kit, 'POST', '/policies/clusters/create', ['2.0'], ({ body }) => {
    const request = parseWith(createPolicyBodySchema, body);
    const definition = request.definition ?? '{}';
    try {
      const parsed: unknown = JSON.parse(definition);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        throw new Error('not an object');
    } catch {
      throw invalidParameter(`Invalid policy definition: ${definition.slice(0, 80)}`);
    }
    if ([...state.policies.values()].some((policy) => policy.name === request.name))
      throw invalidParameter(`Policy with name ${request.name} already exists.`);
    const policy: PolicyRecord = {
      policyId: newId(context, 16),
      name: request.name,
      definition,
      description: request.description,
      createdAtMs: clock.now(),
    };
    state.policies.set(policy.policyId, policy);
    return { policy_id: policy.policyId };
  });

  registerApi(app, kit, 'GET', '/policies/clusters/get', ['2.0'], ({ query }) => {
    const policy = state.policies.get(query.policy_id ?? '');
    if (!policy) throw resourceMissing(`Can't find a cluster policy with id: ${query.policy_id ?? ''}.`);
    return policyJson(policy);
  });

  registerApi(app, kit, 'GET', '/policies/clusters/list', ['2.0'], () => ({
    policies: [...state.policies.values()].map(policyJson),
    total_count: state.policies.size,
  }));

  registerApi(app, kit, 'POST', '/policies/clusters/delete', ['2.0'], ({ body }) => {
    const { policy_id: policyId } = parseWith(z.looseObject({ policy_id: z.string() }), body);
    if (!state.policies.delete(policyId))
      throw resourceMissing(`Can't find a cluster policy with id: ${policyId}.`);
    return {};
  });

  registerApi(app, kit, 'POST', '/instance-pools/create', ['2.0'], ({ body }) => {
    const request = parseWith(createPoolBodySchema, body);
    if (!findNodeType(request.node_type_id))
      throw invalidParameter(`Node type ${request.node_type_id} is not supported.`);
    const pool: InstancePoolRecord = {
      instancePoolId: `${clock.now().toString(16).slice(-4)}-${newId(context, 6).toLowerCase()}-pool-${newId(context, 8).toLowerCase()}`,
      name: request.instance_pool_name,
      nodeTypeId: request.node_type_id,
      awsAttributes: request.aws_attributes,
      azureAttributes: request.azure_attributes,
      minIdleInstances: request.min_idle_instances ?? 0,
      maxCapacity: request.max_capacity,
    };
    state.instancePools.set(pool.instancePoolId, pool);
    return { instance_pool_id: pool.instancePoolId };
  });

  registerApi(app, kit, 'GET', '/instance-pools/get', ['2.0'], ({ query }) => {
    const pool = state.instancePools.get(query.instance_pool_id ?? '');
    if (!pool) throw resourceMissing(`Instance pool ${query.instance_pool_id ?? ''} does not exist.`);
    return poolJson(pool);
  });

  registerApi(app, kit, 'GET', '/instance-pools/list', ['2.0'], () => ({
    instance_pools: [...state.instancePools.values()].map(poolJson),
  }));
}
