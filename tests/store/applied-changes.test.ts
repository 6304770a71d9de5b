import { type Kysely, Migrator, sql } from 'kysely';
import { registeredPlatforms } from 'setpoint/composition/platforms';
import { createAppliedChangeRepository } from 'setpoint/service/apply/applied-change-repository';
import { createApplyIntentRepository } from 'setpoint/service/apply/apply-intent-repository';
import type { Database } from 'setpoint/store/database-schema';
import type { DialectName } from 'setpoint/store/dialect';
import { migrationProvider } from 'setpoint/store/migrations/index';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeOnBothDatabases, type OpenDatabase } from '../support/store-contract.js';

/** The last migration before the apply history became one for every platform. */
const beforeTheMove = '0101-databricks-cluster-end';

const databricksSpec = {
  node_type_id: 'm5.xlarge',
  num_workers: 4,
  aws_attributes: { availability: 'SPOT_WITH_FALLBACK' },
};
const emrPlan = {
  clusterId: 'j-LONG',
  actions: [{ kind: 'instance-group', instanceGroupId: 'ig-1', role: 'TASK', from: 6, to: 2 }],
};

/**
 * A database of the release before: each platform's apply history and guard in its own tables. Migrating it
 * moves every row into the one history and guard, on both databases, and drops the platforms' tables.
 */
function appliedChangesContract(open: OpenDatabase) {
  let db: Kysely<Database>;
  let dialect: DialectName;
  const migrator = () =>
    new Migrator({
      db,
      provider: migrationProvider(
        dialect,
        registeredPlatforms().map((platform) => (name: DialectName) => platform.migrations(name)),
      ),
    });

  beforeAll(async () => {
    ({ db, dialect } = open());
    const before = await migrator().migrateTo(beforeTheMove);
    if (before.error) throw before.error;
    await sql`
      INSERT INTO databricks_applied_configs
        (id, project_id, recommendation_id, kind, cluster_spec, actor, reason, created_at)
      VALUES
        ('cfg_base', 'prj_dbx', NULL, 'baseline', ${JSON.stringify(databricksSpec)}, 'ana', 'configuration at import', 100),
        ('cfg_apply', 'prj_dbx', 'rec_1', 'auto-apply', ${JSON.stringify({ ...databricksSpec, num_workers: 2 })}, 'setpoint:auto-apply', 'fewer workers', 200)
    `.execute(db);
    await sql`
      INSERT INTO databricks_project_guard (project_id, auto_apply_paused, pause_reason, last_good_config_id, updated_at)
      VALUES ('prj_dbx', 1, 'reverted: run 7 failed', 'cfg_base', 300)
    `.execute(db);
    await sql`
      INSERT INTO emr_applied_configs
        (id, project_id, recommendation_id, kind, cluster_id, plan, undoes, actor, reason, created_at)
      VALUES
        ('cfg_resize', 'prj_emr', 'rec_2', 'apply', 'j-LONG', ${JSON.stringify(emrPlan)}, NULL, 'ana', 'fewer task instances', 100),
        ('cfg_undo', 'prj_emr', 'rec_2', 'rollback', 'j-LONG', ${JSON.stringify(emrPlan)}, 'cfg_resize', 'ana', 'undo', 100)
    `.execute(db);
    await sql`
      INSERT INTO emr_project_guard (project_id, auto_apply_paused, pause_reason, updated_at)
      VALUES ('prj_emr', 0, NULL, 300)
    `.execute(db);
    const after = await migrator().migrateToLatest();
    if (after.error) throw after.error;
  });

  afterAll(async () => {
    await db?.destroy();
  });

  it('moves both platforms’ histories into the one history, in order, each with its platform', async () => {
    const changes = createAppliedChangeRepository(db);
    expect(await changes.history('prj_dbx')).toEqual([
      expect.objectContaining({
        id: 'cfg_base',
        platform: 'databricks',
        kind: 'baseline',
        recommendationId: null,
        configuration: databricksSpec,
        undoes: null,
        createdAt: 100,
      }),
      expect.objectContaining({
        id: 'cfg_apply',
        platform: 'databricks',
        kind: 'auto-apply',
        actor: 'setpoint:auto-apply',
        configuration: { ...databricksSpec, num_workers: 2 },
      }),
    ]);
    const emr = await changes.history('prj_emr');
    expect(emr.map((change) => [change.id, change.platform, change.kind, change.undoes])).toEqual([
      ['cfg_resize', 'emr', 'apply', null],
      ['cfg_undo', 'emr', 'rollback', 'cfg_resize'],
    ]);
    expect(emr[0]?.configuration).toEqual(emrPlan);
  });

  it('moves both guards, the pause and the last good configuration kept', async () => {
    const changes = createAppliedChangeRepository(db);
    expect(await changes.guard('prj_dbx')).toEqual({
      paused: true,
      pauseReason: 'reverted: run 7 failed',
      lastGoodChangeId: 'cfg_base',
    });
    expect(await changes.guard('prj_emr')).toEqual({
      paused: false,
      pauseReason: null,
      lastGoodChangeId: null,
    });
  });

  it('drops the platforms’ own apply tables', async () => {
    for (const table of [
      'databricks_applied_configs',
      'databricks_project_guard',
      'emr_applied_configs',
      'emr_project_guard',
    ])
      await expect(sql`SELECT 1 FROM ${sql.table(table)}`.execute(db)).rejects.toThrow();
  });

  it('records after the newest entry, even in the same millisecond, and updates a guard in place', async () => {
    const changes = createAppliedChangeRepository(db);
    const first = await changes.record({
      projectId: 'prj_new',
      platform: 'emr',
      recommendationId: 'rec_3',
      kind: 'apply',
      configuration: emrPlan,
      undoes: null,
      actor: 'ana',
      reason: 'resize',
    });
    const undo = await changes.record({
      projectId: 'prj_new',
      platform: 'emr',
      recommendationId: 'rec_3',
      kind: 'rollback',
      configuration: emrPlan,
      undoes: first.id,
      actor: 'ana',
      reason: 'undo',
    });
    expect(undo.createdAt).toBeGreaterThan(first.createdAt);
    expect((await changes.history('prj_new')).map((change) => change.id)).toEqual([first.id, undo.id]);
    await changes.saveGuard('prj_new', { paused: true, pauseReason: 'changed outside Setpoint' });
    await changes.saveGuard('prj_new', { lastGoodChangeId: first.id });
    expect(await changes.guard('prj_new')).toEqual({
      paused: true,
      pauseReason: 'changed outside Setpoint',
      lastGoodChangeId: first.id,
    });
  });

  it('records an entry kept once per key once, also when two record it at the same time', async () => {
    const changes = createAppliedChangeRepository(db);
    const launch = {
      projectId: 'prj_launched',
      platform: 'emr',
      recommendationId: 'rec_4',
      kind: 'apply' as const,
      configuration: { clusterId: 'j-ONE', actions: [], launched: '1 × m5.xlarge primary' },
      undoes: null,
      actor: 'airflow:nightly.orders',
      reason: 'launched as recommended',
    };
    const [first, second] = await Promise.all([
      changes.record(launch, { once: 'launch after none' }),
      changes.record(
        { ...launch, configuration: { ...launch.configuration, clusterId: 'j-TWO' } },
        { once: 'launch after none' },
      ),
    ]);
    expect(second).toEqual(first);
    expect(first?.id).toMatch(/^cfg_[0-9a-f]{20}$/);
    expect(await changes.history('prj_launched')).toEqual([first]);
    // another key is another entry; the same key in another project too
    const next = await changes.record(launch, { once: `launch after ${first?.id}` });
    expect(next.id).not.toBe(first?.id);
    const elsewhere = await changes.record(
      { ...launch, projectId: 'prj_other' },
      { once: 'launch after none' },
    );
    expect(elsewhere.id).not.toBe(first?.id);
    expect(await changes.history('prj_launched')).toHaveLength(2);
  });

  it('holds one pending intent per project: a second waits, a lapsed one is taken over once', async () => {
    const intents = createApplyIntentRepository(db);
    const changes = createAppliedChangeRepository(db);
    const intended = {
      projectId: 'prj_locked',
      platform: 'databricks',
      kind: 'auto-apply' as const,
      recommendationId: 'rec_1',
      actor: 'setpoint:auto-apply',
    };
    const first = await intents.tryBegin(intended, 60_000);
    if (!first) throw new Error('the first intent was refused');
    expect(await intents.tryBegin({ ...intended, recommendationId: 'rec_2' }, 60_000)).toBeNull();
    // another project is not held up
    expect(await intents.tryBegin({ ...intended, projectId: 'prj_other' }, 60_000)).not.toBeNull();
    // a live holder is not taken over
    expect(await intents.takeOver(first.id, 60_000)).toBe(false);
    // written and recorded in one step: the lock is free again
    await intents.stage(first.id, {
      configuration: { node_type_id: 'm5.xlarge' },
      undoes: null,
      reason: 'r',
    });
    const change = await changes.record(
      {
        ...intended,
        kind: 'auto-apply',
        configuration: { node_type_id: 'm5.xlarge' },
        undoes: null,
        reason: 'r',
      },
      { intent: { id: first.id, last: true } },
    );
    expect((await intents.ofProject('prj_locked'))[0]).toMatchObject({
      state: 'written',
      changeId: change.id,
      configuration: { node_type_id: 'm5.xlarge' },
    });
    // a holder that went silent (its lease ran out already): taken over by one caller only
    const lapsed = await intents.tryBegin(intended, -1);
    if (!lapsed) throw new Error('the lock was not free after the write');
    expect((await intents.lapsed()).map((intent) => intent.id)).toEqual([lapsed.id]);
    const takers = await Promise.all([
      intents.takeOver(lapsed.id, 60_000),
      intents.takeOver(lapsed.id, 60_000),
    ]);
    expect(takers.filter(Boolean)).toHaveLength(1);
    await intents.close(lapsed.id, 'abandoned', 'its process stopped');
    expect(await intents.pendingOf('prj_locked')).toBeUndefined();
    expect(await intents.lapsed()).toEqual([]);

    // a write that failed after it was staged, never recorded: its answer may have been lost
    expect(await intents.lastUnrecordedFailure('prj_locked')).toBeUndefined();
    const failing = await intents.tryBegin(intended, 60_000);
    if (!failing) throw new Error('the lock was not free after the abandoned intent');
    await intents.stage(failing.id, {
      configuration: { node_type_id: 'c5.xlarge' },
      undoes: null,
      reason: 'r',
    });
    await intents.close(failing.id, 'failed', 'jobs/update: HTTP 504');
    expect(await intents.lastUnrecordedFailure('prj_locked')).toMatchObject({
      id: failing.id,
      configuration: { node_type_id: 'c5.xlarge' },
    });
    // once recorded, it is no longer a candidate
    await changes.record(
      {
        ...intended,
        kind: 'auto-apply',
        configuration: { node_type_id: 'c5.xlarge' },
        undoes: null,
        reason: 'r',
      },
      { intent: { id: failing.id, last: true } },
    );
    expect(await intents.lastUnrecordedFailure('prj_locked')).toBeUndefined();
  });
}

describeOnBothDatabases('apply history', appliedChangesContract);
