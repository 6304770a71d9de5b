import { formFactorAdviceSchema } from '@setpoint/api-contract';
import { databricksIntegrationOf } from 'setpoint/platforms/databricks/databricks-platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { remoteCliEnv, runCli } from '../support/run-cli.js';
import { type Harness, importJob, jobIdByName } from './integration-harness.js';
import { emulatorCalls, runBilled, startServerlessHarness } from './serverless-support.js';

/** The emulator's list price of its serverless jobs SKU on AWS. */
const serverlessUsdPerDbu = 0.35;

describe('form-factor advice: a job-cluster job priced on serverless, and back, as a proposal a person decides', () => {
  let h: Harness;
  const { call } = emulatorCalls(() => h);
  let accessToken = '';
  let cliKey = { id: '', secret: '' };
  const api = async (method: 'GET' | 'POST', url: string, body?: unknown) => {
    const response = await h.server.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${accessToken}` },
      ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
    });
    return { status: response.statusCode, json: response.json() as Record<string, unknown> };
  };
  const advice = async (projectId: string) => {
    const response = await api('GET', `/api/v1/projects/${projectId}/form-factor`);
    expect(response.status, JSON.stringify(response.json)).toBe(200);
    return formFactorAdviceSchema.parse(response.json);
  };
  /** What a team does to move a job: detach it from Setpoint, run its task in an environment, no cluster. */
  const moveToServerless = async (jobId: string) => {
    await databricksIntegrationOf(h.server.services).onboarding.detach(h.workspaceId, jobId, 'test');
    const job = await h.databricks.getJob(jobId);
    const task = job.settings.tasks![0]!;
    await call('/api/2.2/jobs/update', {
      job_id: Number(jobId),
      new_settings: {
        environments: [{ environment_key: 'default', spec: { client: '2' } }],
        tasks: [
          { task_key: task.task_key, environment_key: 'default', spark_python_task: task.spark_python_task },
        ],
        job_clusters: [],
      },
    });
  };
  const dbusOf = (cost: { components: Array<{ kind: string; fee: string | null; quantity: number }> }) =>
    cost.components
      .filter((c) => c.kind === 'platform_fee' && c.fee === 'dbu')
      .reduce((s, c) => s + c.quantity, 0);

  beforeAll(async () => {
    h = await startServerlessHarness(43);
    const key = await h.server.services.apiKeys.create('form-factor-test', 'test');
    ({ accessToken } = await h.server.services.apiKeys.exchange(key.id, key.secret));
    cliKey = await h.server.services.apiKeys.create('form-factor-cli', 'test');
  });
  afterAll(async () => h?.close());

  it('estimates serverless for a job-cluster job from its billed DBUs at the serverless list price, as an assumption: no move proposed', async () => {
    const { jobId, projectId } = await importJob(h, await jobIdByName(h.databricks, 'Daily aggregation'), {
      slaMinutes: 120,
    });
    const runs = [await runBilled(h, projectId, jobId), await runBilled(h, projectId, jobId)];
    const result = await advice(projectId);

    expect(result).toMatchObject({
      from: 'classic',
      to: 'serverless',
      verdict: 'estimate_only',
      proposal: null,
    });
    expect(result.change).toMatch(/^(job cluster "[^"]+"|task "[^"]+" cluster) → serverless compute/);
    expect(result.change).not.toContain('`');
    // the job's billed DBUs (median of two = their mean) at the SKU's list price, read from system.billing.list_prices
    const dbus = (dbusOf(runs[0]!.cost!) + dbusOf(runs[1]!.cost!)) / 2;
    expect(result.estimate?.kind).toBe('assumption');
    expect(result.estimate?.usd_per_run.mid).toBeCloseTo(dbus * serverlessUsdPerDbu, 6);
    expect(result.estimate?.usd_per_run.low).toBeCloseTo((dbus / 2) * serverlessUsdPerDbu, 6);
    expect(result.current_usd_per_run).toBeCloseTo(
      (runs[0]!.cost!.totalUsd + runs[1]!.cost!.totalUsd) / 2,
      6,
    );
    expect(result.basis.join('\n')).toMatch(/list price of PREMIUM_JOBS_SERVERLESS_COMPUTE_US_WEST_OREGON/);
    expect(result.basis.join('\n')).toMatch(/this is an assumption, not evidence/);
    expect(result.explanation).toMatch(/^Estimate only, no move proposed|^Stay as it is/);
    // nothing to decide on
    const refused = await api('POST', `/api/v1/projects/${projectId}/form-factor/decision`, {
      decision: 'approve',
    });
    expect(refused.status).toBe(409);
    expect(refused.json).toMatchObject({ error: { code: 'FORM_FACTOR_NOT_PROPOSED' } });
  }, 180_000);

  it('once a job ran in both forms: measured both ways, the estimate checked, and other jobs priced with that evidence', async () => {
    const { jobId, projectId: classicId } = await importJob(
      h,
      await jobIdByName(h.databricks, 'Photon-friendly SQL'),
      { slaMinutes: 120 },
    );
    const classicRuns = [await runBilled(h, classicId, jobId), await runBilled(h, classicId, jobId)];
    // the team moves the job to serverless compute (Setpoint never does) and imports it again
    await moveToServerless(jobId);
    const { projectId: serverlessId } = await importJob(h, jobId, { slaMinutes: 120 });
    const serverlessRuns = [
      await runBilled(h, serverlessId, jobId),
      await runBilled(h, serverlessId, jobId),
      await runBilled(h, serverlessId, jobId),
    ];

    // the serverless project: its job cluster's cost is measured, not invented
    const back = await advice(serverlessId);
    expect(back).toMatchObject({ from: 'serverless', to: 'classic' });
    expect(back.estimate?.kind).toBe('measured');
    expect(back.estimate?.usd_per_run.mid).toBeCloseTo(
      (classicRuns[0]!.cost!.totalUsd + classicRuns[1]!.cost!.totalUsd) / 2,
      6,
    );
    expect(back.reason).toMatch(/^a run would cost \d+% more in the other form$|save/);
    // the check: what its cluster runs estimated for serverless (no other job moved yet: the assumption)
    // against what its serverless runs cost
    const measured = serverlessRuns.map((run) => run.cost!.totalUsd).sort((a, b) => a - b);
    expect(back.check?.measured_usd).toBeCloseTo(measured[1]!, 9);
    expect(back.check?.error).toBeCloseTo(
      Math.abs(back.check!.estimated_usd - back.check!.measured_usd) / back.check!.measured_usd,
      9,
    );

    // another job-cluster job is now priced with that move's evidence: its DBUs × the DBU ratio seen there
    const { jobId: otherJob, projectId: otherId } = await importJob(
      h,
      await jobIdByName(h.databricks, 'Join-heavy ETL'),
      { slaMinutes: 240 },
    );
    await runBilled(h, otherId, otherJob);
    await runBilled(h, otherId, otherJob);
    const priced = await advice(otherId);
    expect(priced.estimate?.kind).toBe('evidence');
    expect(priced.basis.join('\n')).toMatch(
      /1 job of this workspace ran in both forms \(Photon-friendly SQL\)/,
    );
    // the price now comes from what the workspace's serverless runs were billed
    expect(priced.basis.join('\n')).toMatch(/what the workspace's serverless job runs were billed/);
    // its cluster DBUs × the ratio the moved job showed, at the billed serverless rate
    const ratio = Number(/serverless used ([\d.]+)×/.exec(priced.basis.join('\n'))?.[1]);
    expect(ratio).toBeGreaterThan(0);
    // on the emulator serverless is far cheaper for it, well inside a 240-minute SLA: a move is proposed
    expect(priced.verdict).toBe('move');
    expect(priced.saving_usd_per_run! / priced.current_usd_per_run!).toBeGreaterThanOrEqual(0.1);
    expect(priced.probability_meets_sla).toBeGreaterThanOrEqual(0.9);
    expect(priced.proposal).toEqual({ status: 'proposed', decided_by: null, decided_at: null, note: null });
    expect(priced.explanation).toMatch(
      /^Proposed: move it \(a person approves; Setpoint does not make the move\)/,
    );

    // a person approves it: recorded with who and why, and nothing is written to the job
    const before = await h.databricks.getJob(otherJob);
    const approved = await api('POST', `/api/v1/projects/${otherId}/form-factor/decision`, {
      decision: 'approve',
      note: 'move after the quarter close',
    });
    expect(approved.status, JSON.stringify(approved.json)).toBe(200);
    expect(formFactorAdviceSchema.parse(approved.json).proposal).toMatchObject({
      status: 'approved',
      decided_by: expect.stringMatching(/form-factor-test|key/),
      note: 'move after the quarter close',
    });
    expect((await h.databricks.getJob(otherJob)).settings).toEqual(before.settings);
    expect((await advice(otherId)).proposal?.status).toBe('approved');
    const trail = await h.server.services.audit.page(
      { projectId: otherId, action: 'form_factor.approved' },
      5,
      0,
    );
    expect(trail.rows[0]?.detail).toMatchObject({ from: 'classic', to: 'serverless' });
    // the CLI shows the same advice with its basis
    const shown = await runCli(['projects', 'form-factor', otherId], {
      env: remoteCliEnv(h.server.url, cliKey),
    });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/verdict\s+move/);
    expect(shown.stdout).toMatch(/proposal\s+approved by .*\(move after the quarter close\)/);
    expect(shown.stdout).toMatch(/Basis:\n {2}- now on its job cluster: median \$/);
    // the team makes the approved move; once it ran there, the evidence-based estimate is checked against it
    const estimated = priced.estimate!.usd_per_run.mid;
    await moveToServerless(otherJob);
    const { projectId: movedId } = await importJob(h, otherJob, { slaMinutes: 240 });
    const moved = [await runBilled(h, movedId, otherJob), await runBilled(h, movedId, otherJob)];
    const checked = await advice(otherId);
    const movedMedian = (moved[0]!.cost!.totalUsd + moved[1]!.cost!.totalUsd) / 2;
    expect(checked.check?.estimated_usd).toBeCloseTo(estimated, 9);
    expect(checked.check?.measured_usd).toBeCloseTo(movedMedian, 9);
    expect(checked.estimate?.kind).toBe('measured');
    // bad input: one readable 400
    const bad = await api('POST', `/api/v1/projects/${otherId}/form-factor/decision`, { decision: 'maybe' });
    expect(bad.status).toBe(400);
  }, 300_000);
});
