import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  createRepository,
  filesAt,
  mergeBranch,
  settingsOfTerraform,
  terraformOfJob,
} from '@setpoint/bench/iac/job-code';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import {
  type Harness,
  importJob,
  insertRecommendation,
  jobIdByName,
  startHarness,
} from '../databricks/integration-harness.js';
import { launchChromium, screenshotDir, signIn } from '../support/browser.js';
import { type GitHttpServer, startGitHttpServer } from '../support/forges/git-http-server.js';
import { type GitHubStandIn, startGitHubStandIn } from '../support/forges/github-stand-in.js';
import { describeFull } from '../support/tiers.js';

vi.setConfig({ testTimeout: 120_000 });

const password = 'correct horse battery staple';
const token = 'ghp_dashboardcode00000000000000000000000';

/**
 * A job whose Terraform is linked, changed from the dashboard: the diff shown before anything is proposed,
 * the pull request opened on the GitHub stand-in over a real git remote, and the source panel following it
 * until the merged change is deployed to the emulator and recorded in the apply history.
 */
describeFull(
  'dashboard: proposing a change in a job’s code, in Chromium',
  'Debian chromium (/usr/bin/chromium)',
  () => {
    let h: Harness;
    let browser: Browser;
    let context: BrowserContext;
    let github: GitHubStandIn;
    let gitServer: GitHttpServer;
    let root: string;

    beforeAll(async () => {
      h = await startHarness({ seed: 5 });
      root = mkdtempSync(path.join(tmpdir(), 'setpoint-dashboard-code-'));
      github = await startGitHubStandIn({ owner: 'acme', repo: 'infra', token });
      gitServer = await startGitHttpServer(root, token);
      await h.server.services.users.create('ada', password, 'admin');
      browser = await launchChromium();
      context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
      await signIn(context, h.server.url, 'ada', password);
    });

    afterAll(async () => {
      await context?.close();
      await browser?.close();
      await gitServer?.close();
      await github?.close();
      await h?.close();
      if (root) rmSync(root, { recursive: true, force: true });
    });

    it('shows the diff, opens the pull request, and follows it until the deployed change is recorded', async () => {
      const jobId = await jobIdByName(h.databricks, 'Daily aggregation');
      const { projectId } = await importJob(h, jobId);
      const generated = terraformOfJob((await h.databricks.getJob(jobId)).settings, {
        comment: 'Owned by the data platform team.',
      });
      const { work } = createRepository(root, 'acme/infra.git', { 'jobs/daily.tf': generated.text });
      await h.server.services.sources.link(
        projectId,
        {
          repository: `${gitServer.url}/acme/infra.git`,
          path: 'jobs/daily.tf',
          forge: 'github',
          forgeApiUrl: github.apiUrl,
          token,
        },
        'ada',
      );
      await insertRecommendation(h.server, projectId, 'rec_code_1', { num_workers: 3 }, 'fewer workers');

      const page = await context.newPage();
      await page.goto(`${h.server.url}/projects/${projectId}/recommendation`);
      const panel = page.getByTestId('code-source');
      await panel.waitFor();
      expect(await panel.textContent()).toContain(
        `Terraform in ${gitServer.url}/acme/infra.git//jobs/daily.tf`,
      );
      expect(await page.getByTestId('code-route').textContent()).toContain(
        'never writes the job through the API',
      );
      expect(await page.getByRole('button', { name: 'Apply', exact: true }).count()).toBe(0);

      await page.getByRole('button', { name: 'Propose change' }).click();
      const dialog = page.getByRole('dialog', { name: 'Propose this change in the code?' });
      const diff = dialog.getByTestId('proposal-diff');
      await diff.waitFor();
      const shown = (await diff.textContent()) ?? '';
      expect(shown).toContain('--- a/jobs/daily.tf');
      expect(shown).toMatch(/^-\s+num_workers\s+=\s+6$/m);
      expect(shown).toMatch(/^\+\s+num_workers\s+=\s+3$/m);
      // nothing is proposed before the person confirms
      expect(github.pulls).toHaveLength(0);
      await page.screenshot({ path: path.join(screenshotDir, 'code-propose-dialog.png') });
      await dialog.getByRole('button', { name: 'Open the proposal' }).click();
      await page.getByText('proposed: https://github.com/acme/infra/pull/1').waitFor();
      expect(github.pulls).toHaveLength(1);
      expect(github.calls.flatMap((call) => call.problems)).toEqual([]);
      await page.getByTestId('proposal-state').getByText('open, waiting for review').waitFor();
      expect(await page.getByTestId('proposal-state').getByRole('link').textContent()).toBe(
        'pull request #1',
      );
      // the job itself is untouched until the team deploys
      expect(JSON.stringify((await h.databricks.getJob(jobId)).settings)).toContain('"num_workers":6');

      // the reviewer merges; the team's pipeline runs terraform apply
      github.merge(1, mergeBranch(work, `setpoint/${projectId}`));
      const files = filesAt(work, ['jobs/daily.tf']);
      expect(files['jobs/daily.tf']).toContain('# Owned by the data platform team.');
      const response = await fetch(`${h.emulator.url}/api/2.2/jobs/reset`, {
        method: 'POST',
        headers: { authorization: `Bearer ${h.emulator.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          job_id: Number(jobId),
          new_settings: await settingsOfTerraform(files, generated.resourceName),
        }),
      });
      expect(response.status).toBe(200);

      await panel.getByRole('button', { name: 'Check now' }).click();
      await page.getByTestId('proposal-state').getByText('merged and deployed: the job runs it').waitFor();
      await page.screenshot({ path: path.join(screenshotDir, 'code-proposal-applied.png'), fullPage: true });
      // recorded in the apply history the applied-configurations view shows
      await page.reload();
      const applied = page.getByTestId('applied-configs');
      await applied.waitFor();
      expect(await applied.textContent()).toContain(
        'proposed in https://github.com/acme/infra/pull/1, merged and deployed',
      );
      await page.close();
    });
  },
);
