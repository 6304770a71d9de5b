import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openStore } from 'setpoint/composition/open-store';
import { createEmrRepository } from 'setpoint/platforms/emr/store/emr-repository';
import type { StoreConnection } from 'setpoint/store/open-database';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestPostgresDatabase, type TestPostgresDatabase } from '../support/postgres.js';
import { describeFull } from '../support/tiers.js';

/** The EMR platform's tables behave the same on both databases: upserts and idempotent marks. */
function emrRepositoryContract(open: () => Promise<StoreConnection>) {
  let store: StoreConnection;
  beforeAll(async () => {
    store = await open();
    const now = Date.now();
    await store.db
      .insertInto('workspaces')
      .values({
        id: 'wsp_emr',
        name: 'emr',
        platform: 'emr',
        cloud: 'aws',
        region: 'us-east-1',
        host: null,
        plan_type: null,
        compute_type: null,
        credentials_ciphertext: null,
        webhook_credentials_ciphertext: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
  });
  afterAll(async () => {
    await store?.close();
  });

  it('keeps one account row per workspace, its grouping rule replaced in place', async () => {
    const repository = createEmrRepository(store.db);
    await repository.saveAccount('wsp_emr', { kind: 'tag', key: 'setpoint:project-id' });
    await repository.saveAccount('wsp_emr', { kind: 'step-name' });
    expect(await repository.account('wsp_emr')).toMatchObject({
      rule: { kind: 'step-name' },
      lastReconciledAt: null,
    });
    await repository.markReconciled('wsp_emr', 1_800_000_000_000);
    expect((await repository.account('wsp_emr'))?.lastReconciledAt).toBe(1_800_000_000_000);
    expect(await repository.accountIds()).toEqual(['wsp_emr']);
  });

  it('records collected steps once and forgets them with the account', async () => {
    const repository = createEmrRepository(store.db);
    await repository.saveWorkload({
      projectId: 'prj_a',
      workspaceId: 'wsp_emr',
      key: 'orders',
      rule: { kind: 'tag', key: 'setpoint:project-id' },
      clusterId: 'j-LONG',
    });
    await expect(
      repository.saveWorkload({
        projectId: 'prj_b',
        workspaceId: 'wsp_emr',
        key: 'orders',
        rule: { kind: 'cluster-name' },
        clusterId: null,
      }),
    ).rejects.toThrow();
    const step = {
      projectId: 'prj_a',
      workspaceId: 'wsp_emr',
      clusterId: 'j-LONG',
      stepId: 's-1',
      runId: 'run_1',
    };
    await repository.markCollected(step);
    await repository.markCollected({ ...step, runId: 'run_2' });
    expect(await repository.collected('prj_a', 'j-LONG', 's-1')).toBe(true);
    expect(await repository.collected('prj_a', 'j-LONG', 's-2')).toBe(false);

    await repository.removeAccount('wsp_emr');
    expect(await repository.account('wsp_emr')).toBeUndefined();
    expect(await repository.workloads('wsp_emr')).toEqual([]);
    expect(await repository.collected('prj_a', 'j-LONG', 's-1')).toBe(false);
  });
}

describe('EMR tables on SQLite', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'setpoint-emr-store-'));
  emrRepositoryContract(() => openStore({ dataDir, databaseUrl: undefined }));
});

describeFull('EMR tables on PostgreSQL', 'a PostgreSQL server (SETPOINT_TEST_PG_URL)', () => {
  let database: TestPostgresDatabase;
  beforeAll(async () => {
    database = await createTestPostgresDatabase();
  });
  // registered before the contract's own after-hook, so it runs after the store's pool has closed
  afterAll(async () => {
    await database?.drop();
  });
  emrRepositoryContract(() => openStore({ dataDir: '/nonexistent', databaseUrl: database.url }));
});
