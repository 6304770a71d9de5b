/**
 * An in-repo Databricks workspace for tests, the demo and the Job Bank: the REST API Setpoint uses,
 * simulated clusters whose runtimes follow the physics in `physics/`, and real-format event logs.
 * Setpoint's runtime never depends on it; `setpoint demo`, `setpoint emulator` and the benches load it.
 */
export { type ProfileForImport, workloadFromProfile } from './import/workload-from-profile.js';
export type { NewClusterLike } from './physics/cluster-spec.js';
export { findNodeType, type NodeType, nodeTypes } from './physics/node-types.js';
export { type SimulatedRun, type SimulateRunOptions, simulateRun } from './physics/simulate-run.js';
export {
  buildEmulator,
  defaultClockSpeed,
  defaultEmulatorToken,
  type Emulator,
  type EmulatorOptions,
  type RunningEmulator,
  startEmulator,
} from './server/build-emulator.js';
export { nodeTypesJson } from './server/clusters-routes.js';
export { type FaultRuleInput, faultRulesSchema } from './server/faults.js';
export type { NodeSpec, NodeSpecSource } from './server/node-specs.js';
export {
  azureDatabricksResourceId,
  defaultServicePrincipals,
  type OAuthOptions,
  type ServicePrincipal,
} from './server/oauth.js';
export type { JobSettings, NewClusterSettings } from './server/schema.js';
export {
  shippedJobSettings,
  shippedServerlessJobSettings,
  type WorkspaceCloud,
} from './server/shipped-jobs.js';
export { type Workload, workloadSchema } from './workloads/schema.js';
export { findShippedWorkload, shippedWorkloads } from './workloads/shipped-workloads.js';
export { WorkloadRegistry } from './workloads/workload-registry.js';
