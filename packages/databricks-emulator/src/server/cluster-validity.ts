import {
  checkClusterSpec,
  checkJobSettings,
  type DatabricksWorkspaceFacts,
  launchableNodeTypes,
  type PolicyFacts,
  type Violation,
} from '@setpoint/validity/databricks';
import { photonDbuMultiplier } from '../physics/cost.js';
import { findNodeType } from '../physics/node-types.js';
import { invalidParameter } from './api-errors.js';
import { nodeTypesJson } from './clusters-routes.js';
import type { EmulatorContext } from './emulator-context.js';
import type { RefusalRecord } from './emulator-state.js';
import type { JobSettings, NewClusterSettings } from './schema.js';

/** What this workspace offers, as the validity rules read it: its cloud's node types, pools, policies. */
export function workspaceFacts(
  context: Pick<EmulatorContext, 'state' | 'cloud' | 'nodeSpecs'>,
): DatabricksWorkspaceFacts {
  const { state } = context;
  const policies = new Map<string, PolicyFacts>();
  for (const policy of state.policies.values()) {
    policies.set(policy.policyId, {
      name: policy.name,
      definition: JSON.parse(policy.definition) as PolicyFacts['definition'],
    });
  }
  return {
    cloud: context.cloud,
    nodeTypes: launchableNodeTypes(nodeTypesJson(context.nodeSpecs, context.cloud)),
    instancePools: new Map(
      [...state.instancePools.values()].map((pool) => [pool.instancePoolId, { nodeTypeId: pool.nodeTypeId }]),
    ),
    policies,
    dbusPerHour(nodeTypeId, photon) {
      const node = findNodeType(nodeTypeId);
      return node ? node.cores * node.dbuPerCoreHour * (photon ? photonDbuMultiplier : 1) : null;
    },
  };
}

/** Most refusals a long-running emulator remembers (the admin API lists them). */
const refusalMemory = 1000;

/**
 * Refuses job settings whose clusters Databricks would refuse on the request (HTTP 400
 * `INVALID_PARAMETER_VALUE`, the first broken rule's message), and remembers the refusal. Rules Databricks
 * only meets when the cluster launches are left to the run (`launchRefusal`).
 */
export function refuseInvalidClusters(
  context: EmulatorContext,
  endpoint: string,
  settings: JobSettings,
): void {
  refuseFirst(context, endpoint, checkJobSettings(settings, workspaceFacts(context)));
}

/** The same for one cluster spec (`clusters/create`, `clusters/edit`). */
export function refuseInvalidCluster(
  context: Pick<EmulatorContext, 'state' | 'cloud' | 'nodeSpecs' | 'clock'>,
  endpoint: string,
  spec: NewClusterSettings,
): void {
  refuseFirst(context, endpoint, checkClusterSpec(spec, workspaceFacts(context)));
}

function refuseFirst(
  context: Pick<EmulatorContext, 'state' | 'clock'>,
  endpoint: string,
  violations: readonly Violation[],
): void {
  const refused = violations.find((violation) => violation.refusedAt === 'request');
  if (!refused) return;
  const { rule, field, message } = refused;
  rememberRefusal(context, { atMs: context.clock.now(), endpoint, rule, field, message });
  throw invalidParameter(message);
}

/** Keeps a refusal (the newest `refusalMemory`) for `GET /emulator/admin/refusals`. */
export function rememberRefusal(context: Pick<EmulatorContext, 'state'>, refusal: RefusalRecord): void {
  const { refusals } = context.state;
  refusals.push(refusal);
  if (refusals.length > refusalMemory) refusals.splice(0, refusals.length - refusalMemory);
}
