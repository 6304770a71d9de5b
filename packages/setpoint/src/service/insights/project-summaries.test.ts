import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { computeCost } from '../../../../../tests/support/run-costs.js';
import { runRow } from '../../../../../tests/support/run-rows.js';
import { openDatabase, type StoreConnection } from '../../store/open-database.js';
import { createProjectService, type Project } from '../projects/project-service.js';
import { createRepositories } from '../repositories.js';
import { createProjectSummaries } from './project-summaries.js';

const hour = 3_600_000;
const now = Date.UTC(2026, 10, 1, 12);

describe('project summaries for the projects list', () => {
  let store: StoreConnection;
  let project: Project;
  let runNumber = 0;

  beforeEach(async () => {
    store = await openDatabase({ dataDir: mkdtempSync(path.join(tmpdir(), 'setpoint-summaries-')) });
    project = await createProjectService(createRepositories(store.db)).create(
      { name: 'nightly', settings: { slaMinutes: 30 } },
      'test',
    );
  });

  afterEach(async () => {
    await store.close();
  });

  async function insertRun(minutes: number, costUsd: number, status = 'SUCCESS'): Promise<string> {
    runNumber += 1;
    const id = `run_summary${runNumber}`;
    const startedAt = now - 48 * hour + runNumber * hour;
    await store.db
      .insertInto('runs')
      .values(
        runRow({
          id,
          project_id: project.id,
          external_run_id: `ext-${runNumber}`,
          pipeline_state: 'DONE',
          status,
          started_at: startedAt,
          ended_at: startedAt + minutes * 60_000,
          cost: JSON.stringify(computeCost(costUsd)),
          created_at: startedAt,
          updated_at: startedAt + runNumber,
        }),
      )
      .execute();
    return id;
  }

  it('summarizes every run of the project', async () => {
    await insertRun(20, 4);
    const last = await insertRun(40, 6);
    const summary = (await createProjectSummaries(createRepositories(store.db).runs)([project], now)).get(
      project.id,
    );
    expect(summary?.runs).toBe(2);
    expect(summary?.last_run).toMatchObject({ id: last, status: 'SUCCESS', runtime_minutes: 40 });
    expect(summary?.sla_hit_rate).toBe(0.5);
  });

  it('recomputes a remembered summary when a run is added or changes', async () => {
    const summaries = createProjectSummaries(createRepositories(store.db).runs);
    const first = await insertRun(20, 4);
    expect((await summaries([project], now)).get(project.id)?.runs).toBe(1);

    const second = await insertRun(25, 5);
    const afterInsert = (await summaries([project], now)).get(project.id);
    expect(afterInsert?.runs).toBe(2);
    expect(afterInsert?.last_run?.id).toBe(second);

    await store.db
      .updateTable('runs')
      .set({ status: 'FAILED', updated_at: now })
      .where('id', '=', second)
      .execute();
    const afterUpdate = (await summaries([project], now)).get(project.id);
    expect(afterUpdate?.last_run).toMatchObject({ id: second, status: 'FAILED' });

    await store.db.deleteFrom('runs').where('id', '=', second).execute();
    expect((await summaries([project], now)).get(project.id)?.last_run?.id).toBe(first);
  });

  it('recomputes when the project SLA changes', async () => {
    const summaries = createProjectSummaries(createRepositories(store.db).runs);
    await insertRun(40, 4);
    expect((await summaries([project], now)).get(project.id)?.sla_hit_rate).toBe(0);
    const relaxed = await createProjectService(createRepositories(store.db)).update(
      project.id,
      { settings: { slaMinutes: 60 } },
      'test',
    );
    expect((await summaries([relaxed], now)).get(relaxed.id)?.sla_hit_rate).toBe(1);
  });

  it('gives a project without runs an empty summary', async () => {
    const summary = (await createProjectSummaries(createRepositories(store.db).runs)([project], now)).get(
      project.id,
    );
    expect(summary).toMatchObject({ runs: 0, last_run: null, cost_per_run_usd: null });
  });
});
