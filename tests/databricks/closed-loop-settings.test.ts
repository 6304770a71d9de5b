import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type ClosedLoop, startClosedLoop } from 'setpoint/demo/closed-loop-driver';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// Starts the emulator and the service and imports every job; slow on a busy machine.
vi.setConfig({ hookTimeout: 120_000 });

describe('the closed loop imports every project with the settings it is given', () => {
  let loop: ClosedLoop;
  let root: string;

  beforeAll(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'setpoint-loop-settings-'));
    loop = await startClosedLoop({
      port: 0,
      dataDir: path.join(root, 'demo'),
      seed: 4,
      projectSettings: { learningMissBudget: 3, preference: 'economy' },
      approveLearningJobs: ['IO-bound scan'],
      env: { SETPOINT_LOG_LEVEL: 'silent' },
    });
  });

  afterAll(async () => {
    await loop?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('sets the learning-run miss budget and preference, with auto-apply on', async () => {
    const projectIds = loop.jobs.flatMap((job) => job.projectIds);
    expect(projectIds.length).toBeGreaterThan(0);
    for (const projectId of projectIds) {
      const { settings } = await loop.server.services.projects.get(projectId);
      expect(settings).toMatchObject({ learningMissBudget: 3, preference: 'economy', autoApply: true });
    }
  });

  it('imports the jobs it names in apply mode approve-learning, each with an approval_needed alert rule', async () => {
    const approving = loop.jobs.filter((job) => job.name === 'IO-bound scan');
    expect(approving).toHaveLength(1);
    const approvingIds = approving.flatMap((job) => job.projectIds);
    expect(approvingIds).toHaveLength(1);
    const modes = new Map<string, string>();
    for (const projectId of loop.jobs.flatMap((job) => job.projectIds))
      modes.set(projectId, (await loop.server.services.projects.get(projectId)).settings.applyMode);
    for (const [projectId, mode] of modes)
      expect(mode).toBe(approvingIds.includes(projectId) ? 'approve-learning' : 'auto');
    const rules = await loop.server.services.alerts.listRules();
    expect(rules.map((rule) => [rule.project_id, rule.event, rule.enabled])).toEqual([
      [approvingIds[0], 'approval_needed', 1],
    ]);
    // nothing has run yet: nothing waits, and no learning run is counted as withheld
    expect(await loop.approvalsOf(approvingIds[0] ?? '')).toEqual({
      waiting: 0,
      approved: 0,
      rejected: 0,
      superseded: 0,
    });
  });
});
