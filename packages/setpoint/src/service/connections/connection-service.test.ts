import { ForbiddenError } from '@setpoint/foundation/errors';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { Workspace, WorkspaceInput } from '../workspaces/workspace-service.js';
import { createConnectionService } from './connection-service.js';
import type { ConnectionCheck, PlatformConnector } from './platform-connector.js';

/** The workspace service's storage, in memory: what the connection service stores and removes. */
function memoryWorkspaces() {
  const stored = new Map<string, Workspace>();
  return {
    stored,
    async get(id: string) {
      const found = stored.get(id);
      if (!found) throw new Error(`no ${id}`);
      return found;
    },
    async list() {
      return [...stored.values()];
    },
    async create(
      input: WorkspaceInput,
      _actor: string,
      beforeInsert?: (input: WorkspaceInput) => Promise<void>,
    ) {
      await beforeInsert?.(input);
      const workspace: Workspace = {
        id: `wsp_${stored.size + 1}`,
        name: input.name,
        platform: input.platform,
        cloud: input.cloud,
        region: input.region ?? null,
        host: input.host ?? null,
        planType: null,
        computeType: null,
        hasCredentials: input.credentials != null,
        hasWebhookCredentials: false,
        createdAt: 1,
        updatedAt: 1,
      };
      stored.set(workspace.id, workspace);
      return workspace;
    },
    async remove(id: string) {
      stored.delete(id);
    },
  };
}

const settings = z.object({ address: z.string().min(1), secret: z.string() });
const signedIn: ConnectionCheck = {
  ok: true,
  reachable: true,
  lines: [{ check: 'sign in', ok: true, detail: 'ok' }],
};
const never = () => new Promise<ConnectionCheck>(() => {});

/** A platform whose sign-in and check answer as told; `removed` lists the connections it forgot. */
function fakeConnector(answer: () => Promise<ConnectionCheck>, removed: string[] = []): PlatformConnector {
  return {
    async plan(raw, by) {
      const parsed = settings.parse(raw);
      if (parsed.address === 'forbidden' && by.role !== 'admin') throw new ForbiddenError('admins only');
      return {
        record: { cloud: 'any', host: parsed.address, credentials: { secret: parsed.secret } },
        target: `HELLO ${parsed.address}`,
        signIn: answer,
      };
    },
    check: () => answer(),
    target: (workspace) => `HELLO ${workspace.host}`,
    describe: async (workspace) => ({ address: workspace.host, has_secret: workspace.hasCredentials }),
    removing: async (id) => {
      removed.push(id);
    },
  };
}

const by = { actor: 'someone', role: 'editor' as const };

function serviceWith(connector: PlatformConnector) {
  const workspaces = memoryWorkspaces();
  const service = createConnectionService({
    workspaces,
    connectors: { names: ['acme'], of: (platform) => (platform === 'acme' ? connector : undefined) },
    limits: { signInMs: 1_000, checkMs: 5_000 },
  });
  return { workspaces, service };
}

describe('the connection lifecycle, whatever the platform', () => {
  afterEach(() => vi.useRealTimers());

  it('stores a connection the platform signed in with, and shows what its platform describes', async () => {
    const { service, workspaces } = serviceWith(fakeConnector(async () => signedIn));
    const added = await service.add(
      { platform: 'acme', name: 'one', settings: { address: 'a', secret: 's3cr3t' } },
      by,
    );
    expect(added).toMatchObject({
      platform: 'acme',
      name: 'one',
      settings: { address: 'a', has_secret: true },
    });
    expect(JSON.stringify(added)).not.toContain('s3cr3t');
    expect(workspaces.stored.size).toBe(1);
  });

  it('answers unreachable, naming what was tried, when a sign-in keeps silent past its limit', async () => {
    vi.useFakeTimers();
    const { service, workspaces } = serviceWith(fakeConnector(never));
    const adding = service.add(
      { platform: 'acme', name: 'one', settings: { address: 'a', secret: 's' } },
      by,
    );
    const refused = expect(adding).rejects.toMatchObject({
      code: 'CONNECTION_UNREACHABLE',
      message:
        'one: reach failed: no answer within 1 s (tried HELLO a); fix: check the address, and that the Setpoint server can reach it (DNS, firewall, proxy, VPN); nothing was registered',
    });
    await vi.advanceTimersByTimeAsync(2_000);
    await refused;
    expect(workspaces.stored.size).toBe(0);
  });

  it("bounds a stored connection's check by the check limit", async () => {
    let answer: () => Promise<ConnectionCheck> = async () => signedIn;
    const { service } = serviceWith(fakeConnector(() => answer()));
    const added = await service.add(
      { platform: 'acme', name: 'one', settings: { address: 'a', secret: 's' } },
      by,
    );
    answer = never;
    vi.useFakeTimers();
    const checking = service.check(added.id, {});
    await vi.advanceTimersByTimeAsync(5_000);
    expect(await checking).toEqual({
      ok: false,
      reachable: false,
      lines: [expect.objectContaining({ check: 'reach', detail: 'no answer within 5 s (tried HELLO a)' })],
    });
  });

  it("refuses a failed sign-in as the input's fault when the platform answered", async () => {
    const refusedCheck: ConnectionCheck = {
      ok: false,
      reachable: true,
      lines: [{ check: 'authenticate', ok: false, detail: 'wrong secret', fix: 'enter it again' }],
    };
    const { service, workspaces } = serviceWith(fakeConnector(async () => refusedCheck));
    await expect(
      service.add({ platform: 'acme', name: 'one', settings: { address: 'a', secret: 's' } }, by),
    ).rejects.toMatchObject({ code: 'CONNECTION_SIGN_IN_REFUSED', kind: 'validation' });
    expect(workspaces.stored.size).toBe(0);
    // without the sign-in it is stored as given
    await service.add(
      { platform: 'acme', name: 'one', settings: { address: 'a', secret: 's' }, checkSignIn: false },
      by,
    );
    expect(workspaces.stored.size).toBe(1);
  });

  it("names the field the platform's schema refused, under settings, and an unknown platform", async () => {
    const { service } = serviceWith(fakeConnector(async () => signedIn));
    await expect(
      service.add({ platform: 'acme', name: 'one', settings: { secret: 's' } }, by),
    ).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringMatching(/^invalid request body: \/settings\/address /),
    });
    await expect(service.add({ platform: 'other', name: 'one', settings: {} }, by)).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      message: 'invalid request body: /platform no platform "other" connects accounts here (known: acme)',
    });
    await expect(
      service.add({ platform: 'acme', name: 'one', settings: { address: 'forbidden', secret: 's' } }, by),
    ).rejects.toMatchObject({ kind: 'forbidden' });
  });

  it('lets the platform forget its own rows before the connection is removed', async () => {
    const removed: string[] = [];
    const { service, workspaces } = serviceWith(fakeConnector(async () => signedIn, removed));
    const added = await service.add(
      { platform: 'acme', name: 'one', settings: { address: 'a', secret: 's' } },
      by,
    );
    await service.remove(added.id, 'someone');
    expect(removed).toEqual([added.id]);
    expect(workspaces.stored.size).toBe(0);
  });
});
