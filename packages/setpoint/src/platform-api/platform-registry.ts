import { ValidationError } from '@setpoint/foundation/errors';
import type { WorkspaceFacts } from '../service/workspaces/workspace-service.js';
import type { PlatformPlugin, PlatformRuntime } from './platform.js';

/**
 * The registered platforms and which one serves a project: its workspace's platform, or the first
 * registered one for projects without a workspace (runs uploaded through the API or Airflow).
 */
export class PlatformRegistry<Entry extends PlatformPlugin | PlatformRuntime = PlatformPlugin> {
  readonly #byName: Map<string, Entry>;
  readonly #default: Entry;

  constructor(readonly entries: readonly Entry[]) {
    const first = entries[0];
    if (!first) throw new Error('at least one platform must be registered');
    this.#default = first;
    this.#byName = new Map(entries.map((entry) => [entry.name, entry]));
  }

  named(name: string): Entry | undefined {
    return this.#byName.get(name);
  }

  forWorkspace(workspace: Pick<WorkspaceFacts, 'platform'> | null): Entry {
    if (!workspace) return this.#default;
    const entry = this.#byName.get(workspace.platform);
    if (!entry) {
      throw new ValidationError(
        'PLATFORM_NOT_REGISTERED',
        `no platform "${workspace.platform}" is registered (known: ${[...this.#byName.keys()].join(', ')})`,
      );
    }
    return entry;
  }
}
