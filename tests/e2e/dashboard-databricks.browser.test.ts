import path from 'node:path';
import type { CostTotals } from '@setpoint/api-contract';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { databricksIntegrationOf } from 'setpoint/platforms/databricks/databricks-platform';
import { findClusterSpec, parseClusterRefKey } from 'setpoint/platforms/databricks/jobs/job-clusters';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { formatUsd } from '../../web/src/lib/format.js';
import {
  eventually,
  type Harness,
  importJob,
  insertRecommendation,
  jobIdByName,
  processedRun,
  startHarness,
} from '../databricks/integration-harness.js';
import { launchChromium, screenshotDir } from '../support/browser.js';
import { settledRecommendation } from '../support/settled-recommendation.js';
import { describeFull } from '../support/tiers.js';

// The first recommendation of the process learns the shipped fleet prior (seconds on a busy machine).
vi.setConfig({ testTimeout: 240_000 });

const password = 'correct horse battery staple';
const dayMs = 86_400_000;

/** Whether `whole` has every leaf of `part` with the same value. */
function contains(whole: unknown, part: unknown): boolean {
  if (part === null || typeof part !== 'object') return Object.is(whole, part);
  if (whole === null || typeof whole !== 'object') return false;
  return Object.entries(part).every(([key, value]) =>
    contains((whole as Record<string, unknown>)[key], value),
  );
}

/**
 * The dashboard driven as a person uses it, against a Setpoint server connected to the Databricks
 * emulator: what the pages do must show up in the emulated workspace.
 */
describeFull(
  'dashboard against the Databricks emulator in Chromium',
  'Debian chromium (/usr/bin/chromium)',
  () => {
    let h: Harness;
    let browser: Browser;
    let context: BrowserContext;

    beforeAll(async () => {
      h = await startHarness({ seed: 5 });
      await h.server.services.users.create('ada', password, 'admin');
      browser = await launchChromium();
      context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
      const page = await context.newPage();
      await page.goto(`${h.server.url}/login`);
      await page.getByLabel('Username').fill('ada');
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL('**/projects');
      await page.close();
    });

    afterAll(async () => {
      await context?.close();
      await browser?.close();
      await h?.close();
    });

    const shot = (page: Page, name: string) =>
      page.screenshot({ path: path.join(screenshotDir, `${name}.png`), fullPage: true });

    it('applies a recommendation from the project page, the job takes the recommended cluster, and rolls it back', async () => {
      const jobId = await jobIdByName(h.databricks, 'Join-heavy ETL');
      const [imported] = await databricksIntegrationOf(h.server.services).onboarding.importJobs(
        h.workspaceId,
        { jobIds: [jobId], settings: { slaMinutes: 240 } },
        'test',
      );
      const project = imported?.projects[0];
      if (!project) throw new Error('the job was imported without a project');
      const runId = await h.databricks.runNow(jobId);
      await eventually(
        async () => {
          const runs = await h.server.services.runs.list(project.id, { limit: 10, offset: 0 });
          return runs.items.find((run) => run.externalRunId === runId && run.pipelineState === 'DONE');
        },
        'the run to be collected and analysed',
        90_000,
      );
      const recommendation = await eventually(
        async () => {
          const latest = await h.server.services.recommendations.latest(project.id).catch(() => undefined);
          return latest?.state === 'SUCCESS' ? latest : undefined;
          // the first recommendation of a process waits for the fleet prior, minutes on a loaded machine
        },
        'a recommendation',
        180_000,
      );

      const recommended = recommendation.configuration as Record<string, unknown>;
      expect(Object.keys(recommended)).toContain('node_type_id');
      const ref = parseClusterRefKey(project.clusterKey);
      const clusterNow = async () => {
        const job = await h.databricks.getJob(jobId);
        return ref ? findClusterSpec(job.settings, ref) : undefined;
      };
      // The recommendation changes something, so the job cannot match it before the apply.
      const original = await clusterNow();
      expect(contains(original, recommended)).toBe(false);

      const page = await context.newPage();
      await page.goto(`${h.server.url}/projects/${project.id}/recommendation`);
      await page.getByTestId('config-diff').waitFor();
      expect(await page.getByTestId('config-diff').locator('tr.diff-changed').count()).toBeGreaterThan(0);
      // The card shows the decision the API holds: the change, the SLA's probability, the basis.
      const decision = recommendation.decision;
      if (!decision) throw new Error('the recommendation has no decision');
      expect(await page.getByTestId('decision-change').textContent()).toBe(decision.change);
      expect(await page.getByTestId('decision-sla').textContent()).toMatch(
        /^P\(runtime ≤ SLA 240\.0 min\) = \d\.\d\d$/,
      );
      expect(await page.getByTestId('decision-basis').textContent()).toMatch(/fleet prior of \d+ jobs?\b/);
      await shot(page, 'emulator-recommendation');
      await page.getByRole('button', { name: 'Apply', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: 'Apply this recommendation?' });
      await dialog.waitFor();
      // The dialog names each change, as many as the diff marks.
      expect(await dialog.getByTestId('apply-changes').locator('li').count()).toBe(
        await page.getByTestId('config-diff').locator('tr.diff-changed').count(),
      );
      await shot(page, 'emulator-apply-dialog');
      await dialog.getByRole('button', { name: 'Apply to the job' }).click();
      await page.getByText('Applied: the job uses the recommended cluster').waitFor();

      // Every setting the recommendation names is on the job's cluster once the apply has run.
      const spec = await eventually(async () => {
        const current = await clusterNow();
        return current && contains(current, recommended) ? current : undefined;
      }, 'the job cluster in the workspace to take the recommended values');
      expect(spec).toMatchObject(recommended);
      await page.reload();
      await page.getByRole('button', { name: 'Applied', exact: true }).waitFor();
      expect(await page.getByRole('cell', { name: 'user:ada' }).count()).toBe(1);
      await shot(page, 'emulator-applied');

      // Rolling back puts the settings the recommendation changed back to what they were.
      const changedBefore = Object.fromEntries(
        Object.keys(recommended)
          .filter((setting) => original?.[setting] !== undefined)
          .map((setting) => [setting, original?.[setting]]),
      );
      expect(contains(spec, changedBefore)).toBe(false);
      await page.getByRole('button', { name: 'Roll back', exact: true }).click();
      const rollback = page.getByRole('dialog', { name: "Roll back the job's cluster?" });
      await rollback.getByRole('button', { name: 'Roll back', exact: true }).click();
      await page.getByText(/^Rolled back to .*Auto-apply is paused until someone resumes it\.$/).waitFor();
      // a person's rollback pauses auto-apply, and the page says so at once
      await page.getByTestId('auto-apply-paused').waitFor();
      await eventually(
        async () => (contains(await clusterNow(), changedBefore) ? true : undefined),
        'the job cluster to be back on its settings from before the apply',
      );
      await page.reload();
      const history = page.getByTestId('applied-configs');
      await history.waitFor();
      expect(await history.locator('tbody tr').count()).toBe(3);
      expect(await history.locator('tbody tr').first().textContent()).toContain('Rolled back');
      expect(await page.getByRole('button', { name: 'Rolled back', exact: true }).isDisabled()).toBe(true);
      await shot(page, 'emulator-rolled-back');

      // The audit trail shows who rolled back and each setting from → to, and its export holds it too.
      await page.goto(`${h.server.url}/audit?action=rollback`);
      const auditRow = page.getByTestId('audit-trail').locator('tbody tr').first();
      await expect.poll(() => auditRow.textContent(), { timeout: 20_000 }).toContain('user:ada');
      const auditText = (await auditRow.textContent()) ?? '';
      expect(auditText).toContain('rollback');
      if (recommended.node_type_id !== original?.node_type_id)
        expect(auditText).toContain(
          `node_type_id: ${String(recommended.node_type_id)} → ${String(original?.node_type_id)}`,
        );
      expect(auditText).toMatch(/summary: \S+: .+ → /);
      await page.close();
    });

    it('says why auto-apply is paused after an SLA-guard revert, and Resume clears it with an audit row', async () => {
      const jobId = await jobIdByName(h.databricks, 'Spill-heavy sort');
      const { projectId, ref } = await importJob(h, jobId);
      // a cluster with too little memory for the sort: the run on it fails, and Setpoint reverts it
      await insertRecommendation(
        h.server,
        projectId,
        'rec_too_small',
        { node_type_id: 'c5.xlarge', num_workers: 8 },
        'a compute-optimized cluster with less memory',
      );
      const nodeType = async () => {
        const job = await h.databricks.getJob(jobId);
        return ref ? findClusterSpec(job.settings, ref)?.node_type_id : undefined;
      };
      const before = await nodeType();
      expect(before).not.toBe('c5.xlarge');

      const page = await context.newPage();
      await page.goto(`${h.server.url}/projects/${projectId}/recommendation`);
      await page.getByRole('button', { name: 'Apply', exact: true }).click();
      await page
        .getByRole('dialog', { name: 'Apply this recommendation?' })
        .getByRole('button', { name: 'Apply to the job' })
        .click();
      await page.getByText('Applied: the job uses the recommended cluster').waitFor();
      // the apply is queued (202): the worker writes it into the job a moment later
      await eventually(
        async () => ((await nodeType()) === 'c5.xlarge' ? true : undefined),
        'the job to take the applied cluster',
      );
      expect(await page.getByTestId('auto-apply-paused').count()).toBe(0);

      const failedRunId = await h.databricks.runNow(jobId);
      const revert = await eventually(
        async () =>
          (await h.server.services.applies.history(projectId)).find((config) => config.kind === 'revert'),
        'the revert after the failed run',
        90_000,
      );
      expect(await nodeType()).toBe(before);

      // The page says auto-apply is paused and why: the revert's reason, as the API holds it.
      await page.reload();
      const notice = page.getByTestId('auto-apply-paused');
      await notice.waitFor();
      expect(revert.reason).toMatch(/^reverted: run \d+ failed on the new configuration/);
      expect(await notice.locator('span').textContent()).toBe(`Auto-apply is paused: ${revert.reason}.`);
      await shot(page, 'emulator-auto-apply-paused');

      // Resume: the notice goes, the guard is lifted, and the audit trail says who resumed it.
      await notice.getByRole('button', { name: 'Resume auto-apply' }).click();
      await page
        .getByRole('status')
        .getByText('Auto-apply resumed: the next ready recommendation is applied.')
        .waitFor();
      await notice.waitFor({ state: 'detached' });
      expect((await h.server.services.applies.guard(projectId)).paused).toBe(false);
      const resumed = await h.server.services.audit.page({ projectId, action: 'auto_apply_resumed' }, 10, 0);
      expect(resumed.rows).toHaveLength(1);
      expect(resumed.rows[0]).toMatchObject({ actor: 'user:ada', detail: { platform: 'databricks' } });
      // the failed run's analysis and recommendation are done (the page then shows that one, a change or
      // a keep) before the page is read again and the server stops
      expect((await processedRun(h, projectId, failedRunId)).status).toBe('FAILED');
      await settledRecommendation(h.server.services.recommendations, projectId);
      await page.reload();
      await page.getByTestId('config-diff').or(page.getByTestId('config-unchanged')).waitFor();
      expect(await page.getByTestId('auto-apply-paused').count()).toBe(0);
      await page.close();
    });

    it('approves a learning run awaiting approval from the Projects table and the project page, and the job takes it', async () => {
      const jobId = await jobIdByName(h.databricks, 'Skewed join');
      const { projectId, ref } = await importJob(h, jobId, {
        applyMode: 'approve-learning',
        slaMinutes: 240,
      });
      if (!ref) throw new Error('the imported project has no cluster');
      const clusterNow = async () => findClusterSpec((await h.databricks.getJob(jobId)).settings, ref);
      const before = await clusterNow();
      await processedRun(h, projectId, await h.databricks.runNow(jobId));
      const [waiting] = await eventually(async () => {
        const items = await h.server.services.applies.listApprovals({
          state: 'waiting',
          projectId,
          limit: 1,
        });
        return items.length > 0 ? items : undefined;
      }, 'a learning run waiting for approval');
      if (!waiting) throw new Error('nothing waits for approval');
      const waitingRecommendation = await h.server.services.recommendations.get(
        projectId,
        waiting.recommendationId,
      );
      const recommended = waitingRecommendation.configuration;
      // the learning run changes something, so the job cannot match it before the approval
      expect(contains(before, recommended)).toBe(false);

      const page = await context.newPage();
      await page.goto(`${h.server.url}/projects`);
      const row = page.getByTestId('projects-table').locator('tr', { hasText: 'Skewed join' });
      const awaiting = row.getByRole('link', { name: 'Awaiting approval' });
      await awaiting.waitFor();
      // the whole words are in view at 1440 px, not "Awaiti…"
      expect(
        await awaiting.evaluate((link) => {
          const cell = link.closest('td') as HTMLElement;
          return cell.scrollWidth > cell.clientWidth + 1 || cell.scrollHeight > cell.clientHeight + 1;
        }),
      ).toBe(false);
      await awaiting.click();
      await page.waitForURL(`**/projects/${projectId}`);
      const banner = page.getByTestId('awaiting-approval');
      await banner.waitFor();
      expect(await banner.textContent()).toContain('waits for a person before Setpoint writes it');
      // what would change leads; the reasoning behind it is folded until asked for
      const change = waitingRecommendation.decision?.change;
      if (!change) throw new Error('the waiting recommendation has no decision');
      expect(await banner.getByTestId('approval-decision').textContent()).toContain(change);
      const why = banner.getByTestId('approval-explanation');
      expect(await why.evaluate((details) => (details as HTMLDetailsElement).open)).toBe(false);
      await why.getByText('Why this learning run').click();
      expect(await why.locator('p').isVisible()).toBe(true);
      await shot(page, 'project-awaiting-approval');
      // nothing is written while it waits
      expect(await clusterNow()).toEqual(before);

      await banner.getByRole('button', { name: 'Approve' }).click();
      await page.getByText('Approved: Setpoint is writing this learning run into the job.').waitFor();
      await eventually(
        async () => (contains(await clusterNow(), recommended) ? true : undefined),
        'the approved learning run to be written into the job',
      );
      const history = await h.server.services.applies.history(projectId);
      expect(history.at(-1)).toMatchObject({
        kind: 'auto-apply',
        recommendationId: waiting.recommendationId,
        actor: 'user:ada',
      });
      await page.reload();
      await page.getByRole('heading', { name: 'Skewed join', exact: false }).first().waitFor();
      expect(await page.getByTestId('awaiting-approval').count()).toBe(0);
      await page.goto(`${h.server.url}/projects`);
      await row.getByText('Approve learning').waitFor();
      await page.close();
    });

    it('discovers the workspace and imports a job from the Discover page', async () => {
      const jobName = 'Many small jobs';
      const jobId = await jobIdByName(h.databricks, jobName);
      const page = await context.newPage();
      await page.goto(`${h.server.url}/discover`);
      const select = page.getByLabel(`Select ${jobName}`, { exact: true });
      await select.waitFor({ timeout: 60_000 });
      expect(await page.locator('.finding').count()).toBeGreaterThan(0);
      await shot(page, 'discover');
      await select.check();
      await page.getByRole('button', { name: 'Import 1 selected' }).click();
      await page.getByText('Imported 1 job as 1 project.').waitFor();
      // The row now says the job is a project instead of offering it for import.
      await page.getByRole('link', { name: `Open the project of ${jobName}` }).waitFor();
      await shot(page, 'discover-imported');

      const job = await h.databricks.getJob(jobId);
      const projectIds = job.settings.tags?.['setpoint:project-id']?.split(',') ?? [];
      expect(projectIds.length).toBeGreaterThan(0);
      expect(job.settings.webhook_notifications).toMatchObject({ on_success: [{ id: expect.any(String) }] });
      await page.getByRole('link', { name: `Open the project of ${jobName}` }).click();
      await page.waitForURL(`**/projects/${projectIds[0]}`);
      await page.goto(`${h.server.url}/projects?q=${encodeURIComponent(jobName)}`);
      await page.getByTestId('project-row').first().waitFor();
      const names = await page
        .locator('[data-testid="project-row"] td[data-column="name"]')
        .allTextContents();
      expect(names.some((name) => name.includes(jobName))).toBe(true);
      await page.close();
    });

    it('creates an API key whose secret is shown once and works, then revokes it', async () => {
      const exchange = (id: string, secret: string) =>
        fetch(`${h.server.url}/api/v1/auth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ api_key_id: id, api_key_secret: secret }),
        });
      const page = await context.newPage();
      await page.goto(`${h.server.url}/settings`);
      await page.getByLabel('New key name').fill('airflow-prod');
      await page.getByRole('button', { name: 'Create key' }).click();
      const secret = (await page.getByTestId('new-key-secret').textContent()) ?? '';
      const keyId = (await page.getByTestId('new-key-id').textContent()) ?? '';
      await shot(page, 'settings-new-key');

      const granted = await exchange(keyId, secret);
      expect(granted.status).toBe(200);
      const { access_token: token } = (await granted.json()) as { access_token: string };
      const asKey = () =>
        fetch(`${h.server.url}/api/v1/projects`, { headers: { authorization: `Bearer ${token}` } });
      expect((await asKey()).status).toBe(200);

      await page.getByRole('button', { name: 'I have stored it' }).click();
      expect(await page.getByTestId('new-key-secret').count()).toBe(0);
      const row = page.getByTestId('api-keys').locator('tr', { hasText: keyId });
      await row.getByRole('button', { name: 'Revoke' }).click();
      const dialog = page.getByRole('dialog', { name: 'Revoke airflow-prod?' });
      await dialog.getByRole('button', { name: 'Revoke key' }).click();
      await row.getByText(/^revoked/).waitFor();
      await shot(page, 'settings-revoked-key');

      expect((await exchange(keyId, secret)).status).toBe(401);
      expect((await asKey()).status).toBe(401);
      // Reloading never shows the secret again.
      await page.reload();
      await page.getByTestId('api-keys').waitFor();
      expect(await page.getByText(secret).count()).toBe(0);
      await page.close();
    });

    it('changes an organization discount in Settings, keeps it after a reload and applies it to spend', async () => {
      const key = await h.server.services.apiKeys.create('summary-reader', 'test');
      const { accessToken } = await h.server.services.apiKeys.exchange(key.id, key.secret);
      // The emulator's clock runs ahead of the wall clock, so its runs can end after "now".
      const spend = async (from = 0, to = Date.now() + 365 * dayMs) => {
        const response = await h.server.app.inject({
          method: 'GET',
          url: `/api/v1/insights/summary?from=${from}&to=${to}`,
          headers: { authorization: `Bearer ${accessToken}` },
        });
        return (response.json() as { spend: CostTotals }).spend;
      };
      const atList = await spend();
      // The job run by the first test was costed, so there is DBU spend to discount.
      expect(atList.by_kind.platform_fee).toBeGreaterThan(0);
      const page = await context.newPage();
      await page.goto(`${h.server.url}/settings`);
      const dbu = page.getByLabel('Databricks DBU discount (%)');
      await dbu.waitFor();
      expect(await dbu.inputValue()).toBe('0');
      await dbu.fill('17.5');
      await page.getByLabel('Default preference for new projects').selectOption('balanced');
      await page.getByLabel('Keep runs for (days)').fill('730');
      await page.getByRole('button', { name: 'Save defaults' }).click();
      await page.getByText('Defaults saved.').waitFor();

      const stored = await h.server.services.organizationSettings.get();
      expect(stored.settings).toMatchObject({
        dbu_discount_pct: 17.5,
        default_preference: 'balanced',
        run_retention_days: 730,
      });
      expect(stored.updatedBy).toBe('user:ada');
      await page.reload();
      await page.getByTestId('org-settings-updated').waitFor();
      expect(await page.getByLabel('Databricks DBU discount (%)').inputValue()).toBe('17.5');
      expect(await page.getByLabel('Default preference for new projects').inputValue()).toBe('balanced');
      expect(await page.getByTestId('org-settings-updated').textContent()).toContain('ada');
      await shot(page, 'settings-organization');

      const discounted = await spend();
      expect(discounted.by_kind.platform_fee).toBeCloseTo(atList.by_kind.platform_fee * (1 - 0.175), 9);
      expect(discounted.by_kind.compute).toBeCloseTo(atList.by_kind.compute, 9);
      // The header shows the 30 days up to the end of today, at the discounted prices.
      const headerTo = Math.floor(Date.now() / dayMs) * dayMs + dayMs;
      const header = await spend(headerTo - 30 * dayMs, headerTo);
      await page.goto(`${h.server.url}/projects`);
      const kpi = page.getByTestId('kpi-spend');
      await kpi.getByText(formatUsd(header.total_usd), { exact: true }).waitFor();
      await shot(page, 'projects-discounted-spend');
      await page.close();
    });
  },
);
