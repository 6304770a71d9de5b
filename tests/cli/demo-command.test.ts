import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';

interface DemoSummary {
  projects: Array<{
    project: string;
    firstCost: number | null;
    lastCost: number | null;
    saving: number | null;
    slaMinutes: number | null;
    phase: string;
  }>;
  overall: { medianSaving: number | null; slaViolationRateAfterLearning: number | null };
}

describe('setpoint demo --headless', () => {
  it('runs every emulator job through the closed loop and prints the summary as JSON', async () => {
    const dataDir = path.join(mkdtempSync(path.join(tmpdir(), 'setpoint-demo-')), 'demo');

    const result = await runCli(['demo', '--headless', '--runs', '2', '--json', '--data-dir', dataDir]);

    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout) as DemoSummary;
    expect(summary.projects).toHaveLength(11);
    for (const project of summary.projects) {
      expect(project.firstCost).toBeGreaterThan(0);
      expect(project.lastCost).toBeGreaterThan(0);
      expect(project.slaMinutes).toBeGreaterThan(0);
      expect(project.saving).toBeCloseTo(1 - (project.lastCost ?? 0) / (project.firstCost ?? 1), 10);
    }
    expect(summary.overall.medianSaving).not.toBeNull();
  }, 400_000);

  it('rejects a bad --runs value in one line', async () => {
    const result = await runCli(['demo', '--headless', '--runs', 'many']);

    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe('setpoint: --runs expects a positive whole number, got "many"');
  });
});
