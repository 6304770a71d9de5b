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
});
