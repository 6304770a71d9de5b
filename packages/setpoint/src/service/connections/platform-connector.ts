import type { Workspace, WorkspaceActor, WorkspaceInput } from '../workspaces/workspace-service.js';

/** One line of a connection's check: what was tried, whether it worked, and how to mend it. */
export interface ConnectionLine {
  check: string;
  ok: boolean;
  detail: string;
  fix?: string | undefined;
}

/** A connection's check: whether collection will work, whether the account answered at all, and why. */
export interface ConnectionCheck {
  ok: boolean;
  reachable: boolean;
  lines: ConnectionLine[];
}

/** What the core stores for a connection (a workspace record); `credentials` are sealed by the core. */
export type ConnectionRecord = Omit<WorkspaceInput, 'name' | 'platform'>;

/** A connection about to be added, as its platform read the settings. */
export interface ConnectionPlan {
  record: ConnectionRecord;
  /** What a sign-in tries (a request and its address), for the line written when no answer came in time. */
  target: string;
  /** Signs in once with the settings as given, within `limitMs`; nothing is stored. */
  signIn(limitMs: number): Promise<ConnectionCheck>;
  /** The platform's own rows for the connection, once it is stored. */
  stored?(workspaceId: string): Promise<void>;
}

/**
 * What a platform gives the core's connection lifecycle (`connection-service.ts`): it reads its own
 * settings (a zod schema: an error names the field), signs in, checks access and describes a stored
 * connection without its secrets. The core validates the envelope, stores and seals, bounds every
 * check in time, audits and removes.
 */
export interface PlatformConnector {
  /**
   * The settings read with the platform's schema (its ZodError is answered as a 400 naming the field)
   * and what storing them means; refuses with an AppError what the actor may not connect.
   */
  plan(settings: unknown, by: WorkspaceActor): Promise<ConnectionPlan>;
  /** Checks what Setpoint can do with a stored connection; `options` are read with the platform's schema. */
  check(workspaceId: string, options: unknown, limits: { signInMs: number }): Promise<ConnectionCheck>;
  /** What the check tries first for a stored connection. */
  target(workspace: Workspace): string;
  /** What may be shown of a stored connection's settings: never a secret, at most whether it is set. */
  describe(workspace: Workspace): Promise<Record<string, unknown>>;
  /** The platform's own rows of a connection about to be removed. */
  removing?(workspaceId: string): Promise<void>;
}

/** The registered platforms' connectors, by platform name. */
export interface PlatformConnectors {
  readonly names: readonly string[];
  of(platform: string): PlatformConnector | undefined;
}
