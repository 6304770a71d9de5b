import { NotFoundError, UpstreamError, ValidationError } from '@setpoint/foundation/errors';
import { ZodError } from 'zod';
import type { Workspace, WorkspaceActor, WorkspaceService } from '../workspaces/workspace-service.js';
import type { ConnectionCheck, PlatformConnector, PlatformConnectors } from './platform-connector.js';

/** A stored connection as the API shows it: the platform's description of its settings, no secret. */
export interface Connection {
  id: string;
  name: string;
  platform: string;
  settings: Record<string, unknown>;
  createdAt: number;
  updatedAt: number;
}

export interface ConnectionInput {
  platform: string;
  name: string;
  settings: unknown;
  /** Sign in before storing (default): an account that does not answer or refuses is not registered. */
  checkSignIn?: boolean | undefined;
}

/**
 * How long a sign-in may take (one request, once), and a whole access check. A platform is given the
 * first and keeps to it; the core answers with what was tried when either runs out regardless.
 */
export interface ConnectionLimits {
  signInMs: number;
  checkMs: number;
}

export const defaultConnectionLimits: ConnectionLimits = { signInMs: 10_000, checkMs: 120_000 };

/** A platform's schema refused part of the request: the same answer as the routes' own validation. */
function invalidField(error: ZodError, under: string): ValidationError {
  const details = error.issues.map((issue) => ({
    path: `/${[under, ...issue.path.map(String)].join('/')}`,
    message: issue.message,
  }));
  const first = details[0];
  return new ValidationError(
    'VALIDATION_FAILED',
    `invalid request body: ${first ? `${first.path} ${first.message}` : `/${under} is not valid`}`,
    { details: { issues: details } },
  );
}

async function readingField<T>(under: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof ZodError) throw invalidField(error, under);
    throw error;
  }
}

/**
 * The platform's answer, or an unreachable line naming what was tried when none came within `limitMs`
 * (and `graceMs` more: a platform that keeps to the limit answers first, with its own words).
 */
async function withinLimit(
  check: Promise<ConnectionCheck>,
  limitMs: number,
  tried: string,
  graceMs = 0,
): Promise<ConnectionCheck> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<ConnectionCheck>((resolve) => {
    timer = setTimeout(
      () =>
        resolve({
          ok: false,
          reachable: false,
          lines: [
            {
              check: 'reach',
              ok: false,
              detail: `no answer within ${limitMs / 1000} s (tried ${tried})`,
              fix: 'check the address, and that the Setpoint server can reach it (DNS, firewall, proxy, VPN)',
            },
          ],
        }),
      limitMs + graceMs,
    );
  });
  try {
    return await Promise.race([check, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** A refused sign-in registers nothing: unreachable is the account's side (502), refused the input (400). */
function refuseFailedSignIn(name: string, check: ConnectionCheck): void {
  const failed = check.lines.find((line) => !line.ok);
  if (check.ok && !failed) return;
  const line = failed ?? { check: 'sign in', detail: 'refused', fix: undefined };
  const reason = `${name}: ${line.check} failed: ${line.detail}${line.fix ? `; fix: ${line.fix}` : ''}; nothing was registered`;
  const details = { check: line.check, detail: line.detail, ...(line.fix && { fix: line.fix }) };
  if (!check.reachable) throw new UpstreamError('CONNECTION_UNREACHABLE', reason, { details });
  throw new ValidationError('CONNECTION_SIGN_IN_REFUSED', reason, { details });
}

/**
 * Connecting an account of any platform: the envelope, storing with sealed secrets (the workspace
 * service), the sign-in before storing, the bounded check, removal. What an account is, how it signs
 * in and what it may do is its platform's (`PlatformConnector`).
 */
export function createConnectionService(deps: {
  workspaces: Pick<WorkspaceService, 'get' | 'list' | 'create' | 'remove'>;
  connectors: PlatformConnectors;
  limits?: Partial<ConnectionLimits> | undefined;
}) {
  const limits: ConnectionLimits = { ...defaultConnectionLimits, ...deps.limits };

  function connectorOf(platform: string): PlatformConnector {
    const connector = deps.connectors.of(platform);
    if (!connector)
      throw new ValidationError(
        'VALIDATION_FAILED',
        `invalid request body: /platform no platform "${platform}" connects accounts here (known: ${deps.connectors.names.join(', ')})`,
        { details: { issues: [{ path: '/platform', message: `unknown platform "${platform}"` }] } },
      );
    return connector;
  }

  async function present(workspace: Workspace): Promise<Connection> {
    const connector = deps.connectors.of(workspace.platform);
    return {
      id: workspace.id,
      name: workspace.name,
      platform: workspace.platform,
      settings: connector ? await connector.describe(workspace) : {},
      createdAt: workspace.createdAt,
      updatedAt: workspace.updatedAt,
    };
  }

  async function stored(id: string): Promise<{ workspace: Workspace; connector: PlatformConnector }> {
    const workspace = await deps.workspaces.get(id);
    const connector = deps.connectors.of(workspace.platform);
    if (!connector)
      throw new NotFoundError(
        'CONNECTION_NOT_FOUND',
        `connection ${id} belongs to platform "${workspace.platform}", which is not registered`,
      );
    return { workspace, connector };
  }

  return {
    limits,
    platforms: (): readonly string[] => deps.connectors.names,

    async list(): Promise<Connection[]> {
      const workspaces = await deps.workspaces.list();
      return Promise.all(
        workspaces.filter((workspace) => deps.connectors.of(workspace.platform)).map(present),
      );
    },

    async get(id: string): Promise<Connection> {
      return present((await stored(id)).workspace);
    },

    async add(input: ConnectionInput, by: WorkspaceActor): Promise<Connection> {
      const connector = connectorOf(input.platform);
      const plan = await readingField('settings', () => connector.plan(input.settings, by));
      const workspace = await deps.workspaces.create(
        { ...plan.record, name: input.name, platform: input.platform },
        by.actor,
        input.checkSignIn === false
          ? undefined
          : async () =>
              refuseFailedSignIn(
                input.name,
                await withinLimit(plan.signIn(limits.signInMs), limits.signInMs, plan.target, 1_000),
              ),
      );
      await plan.stored?.(workspace.id);
      return present(workspace);
    },

    async check(id: string, options: unknown): Promise<ConnectionCheck> {
      const { workspace, connector } = await stored(id);
      return readingField('options', () =>
        withinLimit(
          connector.check(id, options, { signInMs: limits.signInMs }),
          limits.checkMs,
          connector.target(workspace),
        ),
      );
    },

    async remove(id: string, actor: string): Promise<void> {
      const { connector } = await stored(id);
      await connector.removing?.(id);
      await deps.workspaces.remove(id, actor);
    },
  };
}

export type ConnectionService = ReturnType<typeof createConnectionService>;
