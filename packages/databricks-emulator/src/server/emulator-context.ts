import type { WorkloadRegistry } from '../workloads/workload-registry.js';
import type { AllPurposeClusters } from './all-purpose-clusters.js';
import type { EmulatorState } from './emulator-state.js';
import type { FaultInjector } from './faults.js';
import type { NodeSpecSource } from './node-specs.js';
import type { RunEngine } from './run-engine.js';
import type { WorkspaceCloud } from './shipped-jobs.js';
import type { SimClock } from './sim-clock.js';
import type { VirtualFs } from './virtual-fs.js';
import type { WebhookSender } from './webhooks.js';

/** What route modules share: the workspace state, the simulation and its clock. */
export interface EmulatorContext {
  state: EmulatorState;
  engine: RunEngine;
  allPurpose: AllPurposeClusters;
  clock: SimClock;
  fs: VirtualFs;
  faults: FaultInjector;
  webhooks: WebhookSender;
  workloads: WorkloadRegistry;
  seed: number;
  /** Instance specs list-node-types reports instead of the simulator's own (see `NodeSpecSource`). */
  nodeSpecs: NodeSpecSource | undefined;
  /** The workspace's cloud: it offers that cloud's node types only. */
  cloud: WorkspaceCloud;
  /** Base URL used in run_page_url; set once the server listens. */
  baseUrl: { value: string };
}
