import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { demoApprovalJob } from 'setpoint/cli/commands/demo';
import { describe, expect, it } from 'vitest';
import { eventually } from '../service/support/service-harness.js';
import { runCli, setpointBin } from '../support/run-cli.js';

interface DemoSummary {
  projects: Array<{
    project: string;
    firstCost: number | null;
    lastCost: number | null;
    saving: number | null;
    slaMinutes: number | null;
    phase: string;
    applyMode: string;
    approvals: { waiting: number; approved: number; rejected: number; superseded: number };
    slaMetLastRuns: { met: number; of: number };
  }>;
  overall: {
    medianSaving: number | null;
    slaViolationRateAfterLearning: number | null;
    afterFirstRecommendation: { runs: number };
    validity: { refusedByPlatform: number; refusedBySetpoint: number; examples: string[] };
  };
}

describe('setpoint demo --headless', () => {
  it('runs every emulator job and EMR workload through the closed loop and prints the summary as JSON', async () => {
    const dataDir = path.join(mkdtempSync(path.join(tmpdir(), 'setpoint-demo-')), 'demo');

    const result = await runCli(['demo', '--headless', '--runs', '2', '--json', '--data-dir', dataDir]);

    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout) as DemoSummary;
    // eleven Databricks projects and the EMR account's three workloads
    expect(summary.projects).toHaveLength(14);
    expect(summary.projects.map((project) => project.project)).toEqual(
      expect.arrayContaining(['orders-nightly', 'clickstream-sessions', 'ledger-sort']),
    );
    for (const project of summary.projects) {
      expect(project.firstCost).toBeGreaterThan(0);
      expect(project.lastCost).toBeGreaterThan(0);
      expect(project.slaMinutes).toBeGreaterThan(0);
      expect(project.saving).toBeCloseTo(1 - (project.lastCost ?? 0) / (project.firstCost ?? 1), 10);
    }
    expect(summary.overall.medianSaving).not.toBeNull();
    // Every run after the first recommendation is counted: at least each project's second run (an EMR
    // workload's imported history may add more).
    expect(summary.overall.afterFirstRecommendation.runs).toBeGreaterThanOrEqual(summary.projects.length);
    // every write was one the platform accepts: the emulated workspace and EMR account refused none, and
    // Setpoint's own check before each write refused none
    expect(summary.overall.validity).toEqual({ refusedByPlatform: 0, refusedBySetpoint: 0, examples: [] });

    // One job waits for a person before each learning run; nobody approves in a headless demo, so the
    // first recommendation's learning run waited until the SLA set after the first run decided again and
    // superseded it, that one waited until the second run started first and superseded it (never applied
    // late), and the recommendation made from that run waits now.
    const approving = summary.projects.filter((project) => project.applyMode === 'approve-learning');
    expect(approving.map((project) => project.project)).toEqual([demoApprovalJob]);
    expect(approving[0]?.approvals).toEqual({ waiting: 1, approved: 0, rejected: 0, superseded: 2 });
    // the second run ran on the job's own cluster, not on the learning run that waited
    expect(approving[0]?.slaMetLastRuns.of).toBe(1);
    for (const project of summary.projects.filter((entry) => entry.applyMode !== 'approve-learning'))
      expect(project.applyMode).toBe('auto');
  }, 400_000);

  it('rejects a bad --runs value in one line', async () => {
    const result = await runCli(['demo', '--headless', '--runs', 'many']);

    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe('setpoint: --runs expects a positive whole number, got "many"');
  });
});

describe('setpoint demo (dashboard)', () => {
  it('prints a one-time sign-in link, dates every run in the last week and none after now, and stops cleanly on Ctrl+C', async () => {
    const dataDir = path.join(mkdtempSync(path.join(tmpdir(), 'setpoint-demo-live-')), 'demo');
    const demo = spawn(
      process.execPath,
      [setpointBin, 'demo', '--port', '0', '--speed', '20', '--data-dir', dataDir],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    demo.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    demo.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => demo.on('exit', (code) => resolve(code)));
    let launched: string[] = [];
    try {
      const link = await eventually(
        async () => /(http:\/\/localhost:\d+\/api\/v1\/session\/demo\?token=\S+)/.exec(stdout)?.[1],
        120_000,
      );
      // On Linux the demo runs in one child with bounded malloc settings, which goes when the demo stops.
      launched =
        process.platform === 'linux'
          ? readFileSync(`/proc/${demo.pid}/task/${demo.pid}/children`, 'utf8').trim().split(' ')
          : [];
      if (process.platform === 'linux') {
        expect(launched).toHaveLength(1);
        const environ = readFileSync(`/proc/${launched[0]}/environ`, 'utf8').split('\0');
        expect(environ).toContain('MALLOC_ARENA_MAX=2');
        expect(environ).toContain('MALLOC_MMAP_THRESHOLD_=131072');
      }
      const signIn = await fetch(link, { redirect: 'manual' });
      expect(signIn.status).toBe(302);
      expect((await fetch(link, { redirect: 'manual' })).status).toBe(404);
      const cookie = signIn.headers
        .getSetCookie()
        .map((header) => header.split(';')[0])
        .join('; ');
      const origin = new URL(link).origin;
      const get = async <T>(url: string) =>
        (await (await fetch(`${origin}${url}`, { headers: { cookie } })).json()) as T;
      const projects = await get<{ items: { id: string }[] }>('/api/v1/projects');
      const runs = await eventually(async () => {
        const page = await get<{ items: { ended_at: number | null }[] }>(
          `/api/v1/projects/${projects.items[0]?.id}/runs`,
        );
        return page.items.some((run) => run.ended_at !== null) ? page.items : undefined;
      }, 120_000);
      for (const run of runs) expect(run.ended_at ?? 0).toBeLessThanOrEqual(Date.now());
      // Back-filled into the last week, not months back: no project looks dormant at first look and
      // its runs count in "Spend, last 30 days".
      const oldest = Math.min(...runs.flatMap((run) => (run.ended_at === null ? [] : [run.ended_at])));
      expect(Date.now() - oldest).toBeLessThan(8 * 86_400_000);

      // The EMR account sits beside the workspace, its three workloads are projects, and the loop keeps
      // running them: a project gets runs beyond the one imported, each costed, none after now.
      const accounts = await get<{ items: { id: string; region: string }[] }>('/api/v1/emr/accounts');
      expect(accounts.items).toHaveLength(1);
      const everyProject = await get<{ items: { id: string; name: string; workspace_id: string | null }[] }>(
        '/api/v1/projects?limit=100',
      );
      const emrProjects = everyProject.items.filter(
        (project) => project.workspace_id === accounts.items[0]?.id,
      );
      expect(emrProjects.map((project) => project.name).sort()).toEqual([
        'clickstream-sessions',
        'ledger-sort',
        'orders-nightly',
      ]);
      const emrRuns = await eventually(async () => {
        const page = await get<{
          items: { external_run_id: string; ended_at: number | null; cost: { total_usd: number } | null }[];
        }>(`/api/v1/projects/${emrProjects[0]?.id}/runs`);
        const costed = page.items.filter((run) => run.cost !== null);
        return costed.length >= 2 ? costed : undefined;
      }, 120_000);
      for (const run of emrRuns) {
        expect(run.external_run_id).toMatch(/^j-[A-Z0-9]+:s-[A-Z0-9]+$/);
        expect(run.cost?.total_usd).toBeGreaterThan(0);
        expect(run.ended_at ?? 0).toBeLessThanOrEqual(Date.now());
      }
    } finally {
      demo.kill('SIGINT');
    }

    expect(await exited).toBe(0);
    expect(stderr).not.toMatch(/destroyed|failed/);
    for (const pid of launched) expect(existsSync(`/proc/${pid}`)).toBe(false);
  }, 300_000);
});
