import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse as parseHcl } from '@cdktf/hcl2json';
import type { AppliedConfigListResource, CodeDiffResource, ProjectSourceView } from '@setpoint/api-contract';
import {
  bundleOfJob,
  bundleRoot,
  createRepository,
  filesAt,
  mergeBranch,
  settingsOfBundle,
  settingsOfTerraform,
  terraformOfJob,
} from '@setpoint/bench/iac/job-code';
import { remoteBranchSha } from 'setpoint/iac/git/git-client';
import { withManagedFields } from 'setpoint/platforms/databricks/jobs/apply-cluster-change';
import { findClusterSpec, parseClusterRefKey } from 'setpoint/platforms/databricks/jobs/job-clusters';
import { diffManagedFields, managedFieldsOf } from 'setpoint/platforms/databricks/jobs/managed-fields';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type GitHttpServer, startGitHttpServer } from '../support/forges/git-http-server.js';
import { type GitHubStandIn, startGitHubStandIn } from '../support/forges/github-stand-in.js';
import {
  eventually,
  type Harness,
  importJob,
  insertRecommendation,
  jobIdByName,
  processedRun,
  startHarness,
} from './integration-harness.js';

// one run through the whole pipeline (the first recommendation of a process learns the fleet prior)
vi.setConfig({ testTimeout: 240_000 });

describe("proposals in a job's code, through the service, against the emulator, real git and a GitHub stand-in", () => {
  let h: Harness;
  let github: GitHubStandIn;
  let gitServer: GitHttpServer;
  let root: string;
  let apiKey: string;
  const token = 'ghp_proposals000000000000000000000000000';

  beforeAll(async () => {
    h = await startHarness({ seed: 5 });
    root = mkdtempSync(path.join(tmpdir(), 'setpoint-code-'));
    github = await startGitHubStandIn({ owner: 'acme', repo: 'infra', token });
    gitServer = await startGitHttpServer(root, token);
    const key = await h.server.services.apiKeys.create('code-test', 'test');
    apiKey = (await h.server.services.apiKeys.exchange(key.id, key.secret)).accessToken;
  });

  afterAll(async () => {
    await gitServer?.close();
    await github?.close();
    await h?.close();
    rmSync(root, { recursive: true, force: true });
  });

  async function api<T>(method: 'GET' | 'PUT' | 'POST' | 'DELETE', url: string, payload?: object) {
    const response = await h.server.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${apiKey}` },
      ...(payload === undefined ? {} : { payload }),
    });
    return { status: response.statusCode, body: (response.body ? JSON.parse(response.body) : null) as T };
  }

  async function deploy(jobId: string, settings: Record<string, unknown>): Promise<void> {
    const response = await fetch(`${h.emulator.url}/api/2.2/jobs/reset`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.emulator.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ job_id: Number(jobId), new_settings: settings }),
    });
    expect(response.status).toBe(200);
  }

  /** Whether the job's cluster holds the recommendation's managed fields (nothing left to write). */
  async function runsRecommendation(
    jobId: string,
    clusterKey: string,
    configuration: Record<string, unknown>,
  ) {
    const ref = parseClusterRefKey(clusterKey);
    const spec = ref && findClusterSpec((await h.databricks.getJob(jobId)).settings, ref);
    if (!spec) return false;
    return (
      diffManagedFields(
        spec,
        withManagedFields(spec, managedFieldsOf(configuration), { maintainScalingType: false }),
      ).length === 0
    );
  }

  it('Terraform: the latest recommendation becomes a pull request; merged and deployed, it is applied and the code shows no drift', async () => {
    const jobId = await jobIdByName(h.databricks, 'Skewed join');
    const { projectId } = await importJob(h, jobId, { slaMinutes: 240 });
    const project = await h.server.services.projects.get(projectId);
    const generated = terraformOfJob((await h.databricks.getJob(jobId)).settings, {
      comment: 'Owned by the data platform team.',
    });
    const { remote, work } = createRepository(root, 'acme/infra.git', { 'infra/jobs.tf': generated.text });
    expect(remote).toContain('acme');

    // a real recommendation, from a run through the whole pipeline
    await processedRun(h, projectId, await h.databricks.runNow(jobId));
    const recommendation = await eventually(async () => {
      const latest = await h.server.services.recommendations.latest(projectId).catch(() => undefined);
      return latest?.state === 'SUCCESS' && latest.decision?.action === 'change' ? latest : undefined;
    }, 'a recommendation that changes the cluster');

    const linked = await api<ProjectSourceView>('PUT', `/api/v1/projects/${projectId}/source`, {
      repository: `${gitServer.url}/acme/infra.git`,
      path: 'infra/jobs.tf',
      forge: 'github',
      forge_api_url: github.apiUrl,
      token,
    });
    expect(linked.status).toBe(200);
    expect(linked.body.source).toMatchObject({
      format: 'terraform',
      forge: 'github',
      token_set: true,
      origin: 'link',
    });
    expect(linked.body.route).toBe('code');
    expect(JSON.stringify(linked.body)).not.toContain(token);

    const diff = await api<CodeDiffResource>('GET', `/api/v1/projects/${projectId}/iac/diff`);
    expect(diff.status).toBe(200);
    expect(diff.body.recommendation_id).toBe(recommendation.id);
    expect(diff.body.diff).toContain('--- a/infra/jobs.tf\n+++ b/infra/jobs.tf\n');
    const changed = diff.body.diff
      .split('\n')
      .filter((line) => /^[+-](?![+-])/.test(line))
      .map(
        (line) =>
          line
            .slice(1)
            .trim()
            .split(/\s*=\s*|\s*\{/)[0],
      );
    // only managed attributes (and their blocks) change
    for (const name of changed)
      expect([
        'node_type_id',
        'driver_node_type_id',
        'num_workers',
        'autoscale',
        'min_workers',
        'max_workers',
        'runtime_engine',
        'availability',
        'first_on_demand',
        'spot_bid_price_percent',
        'ebs_volume_type',
        'ebs_volume_count',
        'ebs_volume_size',
        '}',
        '',
      ]).toContain(name);

    // applying a recommendation of a job whose code is linked opens the pull request, and answers with it
    const proposed = await api<{
      proposal: { url: string; branch: string; number: number; state: string };
      message: string;
    }>('POST', `/api/v1/projects/${projectId}/recommendations/${recommendation.id}/apply`, {});
    expect(proposed.status).toBe(201);
    expect(proposed.body.message).toBe('proposed: https://github.com/acme/infra/pull/1');
    expect(proposed.body.proposal).toMatchObject({
      url: 'https://github.com/acme/infra/pull/1',
      number: 1,
      state: 'open',
      branch: `setpoint/${projectId}`,
    });
    expect(github.calls.flatMap((call) => call.problems)).toEqual([]);
    const pull = github.pulls[0];
    expect(pull?.title).toBe(`Setpoint: ${project.name} — ${recommendation.decision?.change}`);
    expect(pull?.body).toContain(`Recommendation \`${recommendation.id}\``);
    expect(pull?.body).toContain(`/projects/${projectId}`);
    expect(pull?.body).toMatch(/\| Cost per run \| \$\d+\.\d\d \| \$\d+\.\d\d \(/);
    expect(pull?.body).toContain('**Probability the run fails:**');

    // the reviewer merges; the team's pipeline runs terraform apply
    const merged = mergeBranch(work, `setpoint/${projectId}`);
    github.merge(1, merged);
    const files = filesAt(work, ['infra/jobs.tf']);
    await parseHcl('jobs.tf', files['infra/jobs.tf'] ?? '');
    await deploy(jobId, await settingsOfTerraform(files, generated.resourceName));

    const listed = await api<{ items: { state: string; applied_at: number | null }[] }>(
      'GET',
      `/api/v1/projects/${projectId}/iac/proposals?refresh=true`,
    );
    expect(listed.body.items[0]).toMatchObject({ state: 'applied' });
    expect(
      await runsRecommendation(jobId, project.clusterKey ?? '', recommendation.configuration ?? {}),
    ).toBe(true);
    // the merged proposal is in the apply history like any change of Setpoint's, once
    await api('GET', `/api/v1/projects/${projectId}/iac/proposals?refresh=true`);
    const history = await api<AppliedConfigListResource>(
      'GET',
      `/api/v1/projects/${projectId}/applied-configs`,
    );
    const recorded = history.body.items.filter((entry) => entry.recommendation_id === recommendation.id);
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({
      kind: 'apply',
      platform: 'databricks',
      reason: 'proposed in https://github.com/acme/infra/pull/1, merged and deployed',
    });
    expect(
      diffManagedFields(
        recorded[0]?.cluster ?? {},
        findClusterSpec(
          (await h.databricks.getJob(jobId)).settings,
          parseClusterRefKey(project.clusterKey ?? '') ?? { kind: 'job_cluster', jobClusterKey: '' },
        ) ?? {},
      ),
    ).toEqual([]);
    const again = await api<CodeDiffResource>(
      'GET',
      `/api/v1/projects/${projectId}/iac/diff?recommendation=${recommendation.id}`,
    );
    expect(again.body.diff).toBe('');
  });

  it('bundle: an unlinked bundle-deployed job is never written through the API; linked, the change lands in its YAML', async () => {
    const jobId = await jobIdByName(h.databricks, 'Two-cluster pipeline');
    const { projectId } = await importJob(h, jobId);
    const project = await h.server.services.projects.get(projectId);
    const settings = (await h.databricks.getJob(jobId)).settings as Record<string, unknown>;
    const bundle = bundleOfJob('pipeline', settings, {
      variable: { path: ['job_clusters', 'new_cluster', 'num_workers'], name: 'ingest_workers' },
    });
    const files = {
      'databricks.yml': bundleRoot('pipelines', bundle.variables, 'prod'),
      'resources/pipeline.yml': bundle.resource,
    };
    const { remote, work } = createRepository(root, 'local/pipelines.git', files);
    await deploy(jobId, settingsOfBundle(files, 'pipeline', 'prod'));
    const job = await h.databricks.getJob(jobId);
    expect(job.settings.deployment).toMatchObject({ kind: 'BUNDLE' });
    expect(job.settings.edit_mode).toBe('UI_LOCKED');

    const configuration = {
      node_type_id: 'm5d.2xlarge',
      num_workers: 3,
      aws_attributes: { availability: 'SPOT_WITH_FALLBACK', first_on_demand: 1 },
    };
    await insertRecommendation(h.server, projectId, 'rec_bundle_1', configuration, 'smaller and spot');
    const before = await api<ProjectSourceView>('GET', `/api/v1/projects/${projectId}/source`);
    expect(before.body).toMatchObject({
      source: null,
      route: 'refuse',
      declared: { deployed_from: 'bundle', locked: true },
    });
    expect(before.body.route_reason).toContain(
      'a change written through the API would be reverted by the next deploy',
    );
    const refused = await api<{ error: { code: string; message: string } }>(
      'POST',
      `/api/v1/projects/${projectId}/recommendations/rec_bundle_1/apply`,
      {},
    );
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('DEPLOYED_FROM_CODE');
    expect(await runsRecommendation(jobId, project.clusterKey ?? '', configuration)).toBe(false);
    // an automatic change is refused the same way, said in the audit trail
    await h.server.services.projects.update(projectId, { settings: { autoApply: true } }, 'test');
    await h.server.services.applies.recommendationReady(projectId, 'rec_bundle_1');
    expect(
      (await h.server.services.projects.audit(projectId)).find((entry) => entry.action === 'apply-refused'),
    ).toBeDefined();
    expect(await runsRecommendation(jobId, project.clusterKey ?? '', configuration)).toBe(false);
    // the apply core itself refuses: no apply, rollback or revert goes through the Jobs API
    const rollback = await api<{ error: { code: string; message: string } }>(
      'POST',
      `/api/v1/projects/${projectId}/rollback`,
      {},
    );
    expect(rollback.status).toBe(409);
    expect(rollback.body.error.code).toBe('DEPLOYED_FROM_CODE');
    expect(rollback.body.error.message).toContain('setpoint projects link-source');
    await expect(
      h.server.services.applies.apply(projectId, 'rec_bundle_1', { actor: 'test', kind: 'apply' }),
    ).rejects.toMatchObject({ code: 'DEPLOYED_FROM_CODE' });
    expect(await runsRecommendation(jobId, project.clusterKey ?? '', configuration)).toBe(false);

    const linked = await api<ProjectSourceView>('PUT', `/api/v1/projects/${projectId}/source`, {
      repository: remote,
      path: 'databricks.yml',
      target: 'prod',
    });
    expect(linked.body).toMatchObject({ route: 'code', source: { format: 'bundle', forge: 'none' } });
    // linked, a direct apply is refused too, naming where the change goes
    await expect(
      h.server.services.applies.apply(projectId, 'rec_bundle_1', { actor: 'test', kind: 'apply' }),
    ).rejects.toMatchObject({
      code: 'CONFIGURATION_IN_CODE',
      message: expect.stringContaining(`${remote}//databricks.yml`),
    });
    expect(await runsRecommendation(jobId, project.clusterKey ?? '', configuration)).toBe(false);
    // auto-apply of a linked job opens (or updates) the proposal: a branch, as no forge is linked
    await h.server.services.applies.recommendationReady(projectId, 'rec_bundle_1');
    const proposed = await api<{ items: { branch: string; url: string | null; created_by: string }[] }>(
      'GET',
      `/api/v1/projects/${projectId}/iac/proposals`,
    );
    expect(proposed.body.items).toHaveLength(1);
    expect(proposed.body.items[0]).toMatchObject({
      url: null,
      branch: `setpoint/${projectId}`,
      created_by: 'auto-apply',
    });
    mergeBranch(work, `setpoint/${projectId}`);
    const merged = filesAt(work, Object.keys(files));
    expect(merged['resources/pipeline.yml']).toContain(
      '# Two-cluster pipeline, deployed with `databricks bundle deploy`',
    );
    expect(merged['databricks.yml']).toContain('default: 3');
    await deploy(jobId, settingsOfBundle(merged, 'pipeline', 'prod'));

    const listed = await api<{ items: { state: string }[] }>(
      'GET',
      `/api/v1/projects/${projectId}/iac/proposals?refresh=true`,
    );
    expect(listed.body.items[0]?.state).toBe('applied');
    expect(await runsRecommendation(jobId, project.clusterKey ?? '', configuration)).toBe(true);
    const history = await api<AppliedConfigListResource>(
      'GET',
      `/api/v1/projects/${projectId}/applied-configs`,
    );
    expect(history.body.items.filter((entry) => entry.recommendation_id === 'rec_bundle_1')).toMatchObject([
      { kind: 'auto-apply', actor: 'auto-apply' },
    ]);
    expect(
      (
        await api<CodeDiffResource>(
          'GET',
          `/api/v1/projects/${projectId}/iac/diff?recommendation=rec_bundle_1`,
        )
      ).body.diff,
    ).toBe('');
  });

  it("Terraform found by the job's setpoint:source tag: never written through the API, its diff read from the tagged file", async () => {
    const jobId = await jobIdByName(h.databricks, 'Spill-heavy sort');
    const { projectId } = await importJob(h, jobId);
    const project = await h.server.services.projects.get(projectId);
    const settings = (await h.databricks.getJob(jobId)).settings as Record<string, unknown>;
    const generated = terraformOfJob(settings);
    const { remote } = createRepository(root, 'local/spill.git', { 'jobs/spill.tf': generated.text });
    // terraform apply of a job that carries the documented tag
    const tags = { ...(settings.tags as Record<string, string> | undefined) };
    await deploy(jobId, { ...settings, tags: { ...tags, 'setpoint:source': `${remote}//jobs/spill.tf` } });

    const view = await api<ProjectSourceView>('GET', `/api/v1/projects/${projectId}/source`);
    expect(view.status).toBe(200);
    expect(view.body).toMatchObject({
      route: 'code',
      source: {
        origin: 'tag',
        format: 'terraform',
        repository: remote,
        path: 'jobs/spill.tf',
        forge: 'none',
      },
      declared: { deployed_from: null, locked: false },
    });
    const configuration = { num_workers: 3 };
    await insertRecommendation(h.server, projectId, 'rec_tagged', configuration, 'fewer workers');
    await expect(
      h.server.services.applies.apply(projectId, 'rec_tagged', { actor: 'test', kind: 'apply' }),
    ).rejects.toMatchObject({ code: 'CONFIGURATION_IN_CODE' });
    expect(await runsRecommendation(jobId, project.clusterKey ?? '', configuration)).toBe(false);

    const diff = await api<CodeDiffResource>(
      'GET',
      `/api/v1/projects/${projectId}/iac/diff?recommendation=rec_tagged`,
    );
    expect(diff.status).toBe(200);
    expect(diff.body).toMatchObject({ format: 'terraform', path: 'jobs/spill.tf', files: ['jobs/spill.tf'] });
    expect(diff.body.diff).toMatch(/^-\s+num_workers\s+=\s+8$/m);
    expect(diff.body.diff).toMatch(/^\+\s+num_workers\s+=\s+3$/m);
  });

  it('refuses a cluster written as an expression, naming it, and leaves the repository as it was', async () => {
    const jobId = await jobIdByName(h.databricks, 'Daily aggregation');
    const { projectId } = await importJob(h, jobId);
    const generated = terraformOfJob((await h.databricks.getJob(jobId)).settings);
    const text = generated.text.replace(/num_workers(\s*)= 6/, 'num_workers$1= max(var.floor, 6)');
    const { remote } = createRepository(root, 'local/daily.git', { 'jobs.tf': text });
    await insertRecommendation(h.server, projectId, 'rec_expression', { num_workers: 3 }, 'fewer');
    await api('PUT', `/api/v1/projects/${projectId}/source`, { repository: remote, path: 'jobs.tf' });

    const refused = await api<{ error: { code: string; message: string } }>(
      'POST',
      `/api/v1/projects/${projectId}/iac/proposals`,
      {},
    );
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('IAC_REFUSED');
    expect(refused.body.error.message).toContain('num_workers is `max(var.floor, 6)` (jobs.tf:');
    // asked to apply, the API names the code and the command that proposes there
    const applied = await api<{ error: { code: string; message: string; details: Record<string, unknown> } }>(
      'POST',
      `/api/v1/projects/${projectId}/recommendations/rec_expression/apply`,
      {},
    );
    expect(applied.status).toBe(409);
    expect(applied.body.error).toMatchObject({
      code: 'CONFIGURATION_IN_CODE',
      details: {
        source: { format: 'terraform', repository: remote, path: 'jobs.tf' },
        command: `setpoint iac propose ${projectId}`,
      },
    });
    expect(applied.body.error.message).toContain('num_workers is `max(var.floor, 6)` (jobs.tf:');
    expect(await remoteBranchSha(remote, `setpoint/${projectId}`)).toBeNull();
  });
});
