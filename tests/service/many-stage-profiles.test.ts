/**
 * Issue 40, finding 1: eleven 1.6 MB uploads of a log with 20,000 stages and 20,000 SQL executions whose
 * names were 4 KB each became ~180 MB profiles each; the server ran out of heap, and crashed again after
 * a restart because each recommendation read its window of profiles back whole. Here, through the real
 * services and their workers (the heavy version is the fault campaign's many-stage row): an upload of
 * such a log is stored within the profile caps, a recommendation reads only model profiles, and a
 * profile stored whole before the caps is cut to them when the workers start.
 */
import { gzipSync } from 'node:zlib';
import { maxStoredProfileBytes } from 'setpoint/eventlog/profile-caps';
import type { RunProfile } from 'setpoint/eventlog/run-profile';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { manyStageEventLog } from '../support/many-stage-eventlog.js';
import { uploadEventLog } from './support/fixture-runs.js';
import { createHarness, eventually, type Harness } from './support/service-harness.js';

vi.setConfig({ testTimeout: 180_000, hookTimeout: 180_000 });

const stages = 1_500;
const sqlExecutions = 400;

describe('profiles of logs with many stages and long texts', () => {
  let h: Harness;
  let projectId: string;
  let runId: string;

  beforeAll(async () => {
    h = await createHarness({ startWorkers: true });
    projectId = (await h.request('POST', '/api/v1/projects', { name: 'many stages' })).json().id;
  });

  afterAll(async () => {
    await h?.close();
  });

  async function upload(content: Buffer, externalRunId: string): Promise<string> {
    const response = await uploadEventLog(h, projectId, content, externalRunId, 'eventlog.gz');
    expect(response.statusCode).toBe(202);
    return response.json().id as string;
  }

  const stored = (id: string) =>
    h.services.store.db
      .selectFrom('runs')
      .select(['profile', 'model_profile', 'pipeline_state'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();

  it('stores the run within the profile caps, with totals of everything and a small model profile', async () => {
    const log = manyStageEventLog({ stages, sqlExecutions, textChars: 4_096 });
    const compressed = gzipSync(log);
    // small on the wire, ~20 MB once read
    expect(compressed.length).toBeLessThan(log.length / 20);
    runId = await upload(compressed, 'many-stages-1');
    const run = await eventually(async () => {
      const read = (await h.request('GET', `/api/v1/projects/${projectId}/runs/${runId}`)).json();
      return ['DONE', 'FAILED'].includes(read.pipeline_state) ? read : undefined;
    });
    expect(run.pipeline_state).toBe('DONE');
    expect(run.profile_summary.stages).toBe(stages);

    const row = await stored(runId);
    expect(row.profile?.length).toBeLessThanOrEqual(maxStoredProfileBytes);
    const profile = JSON.parse(row.profile ?? 'null') as RunProfile;
    expect(profile.stages.length).toBeLessThan(stages);
    expect(profile.sqlExecutions.length).toBeLessThan(sqlExecutions);
    expect(profile.totals.sqlExecutions).toBe(sqlExecutions);
    expect(profile.parse.issues.map((issue) => issue.code)).toContain('profile-capped');
    expect(row.model_profile?.length).toBeLessThan(128 * 1024);
    expect(JSON.parse(row.model_profile ?? 'null')).toMatchObject({ stageCount: stages });

    const recommendation = await eventually(async () => {
      const latest = await h.request('GET', `/api/v1/projects/${projectId}/recommendations/latest`);
      return latest.status === 200 && latest.json().state !== 'PENDING' ? latest.json() : undefined;
    });
    expect(recommendation.state).toBe('SUCCESS');
  });

  it('cuts a profile stored whole before the caps when the workers start, and learns from it', async () => {
    // a run as the server stored it before the caps: every stage listed (names 4 KB), no model profile
    const source = await h.services.store.db
      .selectFrom('runs')
      .selectAll()
      .where('id', '=', runId)
      .executeTakeFirstOrThrow();
    const capped = JSON.parse(source.profile ?? 'null') as RunProfile;
    const whole: RunProfile = {
      ...capped,
      stages: Array.from({ length: stages }, (_, i) => ({
        ...(capped.stages[0] as RunProfile['stages'][number]),
        stageId: i,
        name: `stage ${i} ${'select a, b from t -- '.repeat(200)}`,
      })),
      parse: { ...capped.parse, issues: [], omitted: undefined },
    };
    const legacy = JSON.stringify(whole);
    expect(legacy.length).toBeGreaterThan(maxStoredProfileBytes);
    await h.services.store.db
      .insertInto('runs')
      .values({
        ...source,
        id: 'run_legacy',
        external_run_id: 'legacy',
        profile: legacy,
        model_profile: null,
        created_at: source.created_at + 1,
        updated_at: source.updated_at + 1,
      })
      .execute();
    await h.services.store.db
      .deleteFrom('maintenance_passes')
      .where('name', '=', 'run-model-profiles')
      .execute();
    const dataDir = h.dataDir;
    await h.close();

    h = await createHarness({ dataDir, startWorkers: true });
    const repaired = await stored('run_legacy');
    expect(repaired.profile?.length).toBeLessThanOrEqual(maxStoredProfileBytes);
    expect(JSON.parse(repaired.profile ?? 'null').parse.omitted).toMatchObject({
      stages: stages - (JSON.parse(repaired.profile ?? 'null') as RunProfile).stages.length,
    });
    expect(JSON.parse(repaired.model_profile ?? 'null')).toMatchObject({ stageCount: stages });

    const requested = await h.request('POST', `/api/v1/projects/${projectId}/recommendations`, {});
    expect(requested.status).toBeLessThan(300);
    const done = await eventually(async () => {
      const read = await h.request(
        'GET',
        `/api/v1/projects/${projectId}/recommendations/${requested.json().id}`,
      );
      return read.json().state !== 'PENDING' ? read.json() : undefined;
    });
    expect(done.state).toBe('SUCCESS');
    expect(done.based_on_run_id).toBe('run_legacy');
  });
});
