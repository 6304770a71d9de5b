import { type Kysely, Migrator, sql } from 'kysely';
import { registeredPlatforms } from 'setpoint/composition/platforms';
import { createApprovalRepository } from 'setpoint/service/apply/approval-repository';
import { createProjectRepository } from 'setpoint/service/projects/project-repository';
import type { Database } from 'setpoint/store/database-schema';
import type { DialectName } from 'setpoint/store/dialect';
import { migrationProvider } from 'setpoint/store/migrations/index';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeOnBothDatabases, type OpenDatabase } from '../support/store-contract.js';

/** The last migration before the apply mode. */
const beforeApplyModes = '0160-code-proposals';

/**
 * A database of the release before: projects and organization defaults with the auto-apply switch only.
 * Migrating gives each the apply mode its switch meant (on: auto, off: manual), on both databases; the
 * approvals table holds one waiting approval per project, and a decision is taken once.
 */
function approvalsContract(open: OpenDatabase) {
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
    const before = await migrator().migrateTo(beforeApplyModes);
    if (before.error) throw before.error;
    const settings = (autoApply: boolean) =>
      JSON.stringify({ slaMinutes: 30, autoApply, preference: 'economy' });
    await sql`
      INSERT INTO projects (id, name, description, settings, created_at, updated_at)
      VALUES ('prj_on', 'on', NULL, ${settings(true)}, 1, 1), ('prj_off', 'off', NULL, ${settings(false)}, 1, 1)
    `.execute(db);
    await sql`
      INSERT INTO organization_settings (id, settings, updated_at, updated_by)
      VALUES ('default', ${JSON.stringify({ default_auto_apply: true, aws_discount_pct: 10 })}, 1, 'ana')
    `.execute(db);
    const after = await migrator().migrateToLatest();
    if (after.error) throw after.error;
  });

  afterAll(async () => {
    await db?.destroy();
  });

  it('gives every project and the organization the apply mode its auto-apply switch meant', async () => {
    const rows = await db.selectFrom('projects').select(['id', 'settings']).orderBy('id').execute();
    expect(rows.map((row) => [row.id, JSON.parse(row.settings)])).toEqual([
      ['prj_off', { slaMinutes: 30, autoApply: false, preference: 'economy', applyMode: 'manual' }],
      ['prj_on', { slaMinutes: 30, autoApply: true, preference: 'economy', applyMode: 'auto' }],
    ]);
    const organization = await db
      .selectFrom('organization_settings')
      .select('settings')
      .executeTakeFirstOrThrow();
    expect(JSON.parse(organization.settings)).toEqual({
      default_auto_apply: true,
      aws_discount_pct: 10,
      default_apply_mode: 'auto',
    });
    const project = await createProjectRepository(db).find('prj_on');
    expect(project?.settings).toMatchObject({ applyMode: 'auto', autoApply: true, slaMinutes: 30 });
  });

  it('keeps one waiting approval per project and takes each decision once', async () => {
    const approvals = createApprovalRepository(db);
    const ask = (recommendationId: string, projectId = 'prj_on') =>
      approvals.ask({ recommendationId, projectId, learningRun: 2, at: 1000 });
    expect(await ask('rec_a')).toBe(true);
    // the project already has one waiting; a retried ask of the same one records nothing new
    expect(await ask('rec_b')).toBe(false);
    expect(await ask('rec_a')).toBe(false);
    expect(await ask('rec_c', 'prj_off')).toBe(true);
    expect([...(await approvals.waitingOf(['prj_on', 'prj_off', 'prj_none'])).keys()].sort()).toEqual([
      'prj_off',
      'prj_on',
    ]);

    // an approval and a supersession race: exactly one wins
    const outcome = { at: 2000, by: 'ana', reason: null };
    const raced = await Promise.all([
      approvals.decide('rec_a', ['waiting'], 'approved', outcome),
      approvals.decide('rec_a', ['waiting'], 'superseded', {
        ...outcome,
        by: 'setpoint',
        reason: 'run 7 ran',
      }),
    ]);
    expect(raced.filter(Boolean)).toHaveLength(1);
    const decided = await approvals.find('rec_a');
    expect(decided?.state).toBe(raced[0] ? 'approved' : 'superseded');
    expect(decided?.decidedAt).toBe(2000);
    // once decided, the project may wait again
    expect(await approvals.waiting('prj_on')).toBeUndefined();
    expect(await ask('rec_b')).toBe(true);
    expect(
      (await approvals.list({ state: 'waiting', limit: 10 })).map((a) => a.recommendationId).sort(),
    ).toEqual(['rec_b', 'rec_c']);
    expect(await approvals.list({ state: 'waiting', projectId: 'prj_off', limit: 10 })).toEqual([
      expect.objectContaining({
        recommendationId: 'rec_c',
        learningRun: 2,
        waitingSince: 1000,
        state: 'waiting',
      }),
    ]);
  });
}

describeOnBothDatabases('approvals and apply modes', approvalsContract);
