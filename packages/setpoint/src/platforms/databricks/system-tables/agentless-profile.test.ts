import { describe, expect, it } from 'vitest';
import { runProfileSchema } from '../../../eventlog/run-profile.js';
import { agentlessProfile } from './agentless-profile.js';

const minute = 60_000;
const node = (driver: boolean, nodes: number, cpu: number) => ({
  nodeType: 'm5.xlarge',
  driver,
  nodes,
  nodeMinutes: nodes * 30,
  firstStartMs: 0,
  lastEndMs: 30 * minute,
  cpuUserPercent: cpu,
  cpuSystemPercent: 5,
  cpuWaitPercent: 1,
  memUsedPercent: 50,
  memUsedMaxPercent: 70,
  networkSentBytes: 1e9,
  networkReceivedBytes: 1e9,
  instances: Array.from({ length: nodes }, (_, index) => ({
    instanceId: `i-${driver ? 'd' : 'w'}${index}`,
    firstStartMs: 0,
    lastEndMs: 30 * minute,
  })),
});

describe('a run profile from system tables', () => {
  it('is a valid RunProfile whose utilization and cores come from the node timeline', () => {
    const profile = agentlessProfile({
      clusterId: 'c-1',
      execution: { startMs: 2 * minute, endMs: 27 * minute },
      failed: false,
      nodes: [node(true, 1, 4), node(false, 3, 55)],
      cluster: null,
      cloud: 'aws',
      region: 'us-west-2',
      photon: false,
      coresOf: () => 4,
    });
    expect(runProfileSchema.safeParse(profile).success).toBe(true);
    expect(profile.application.durationMs).toBe(25 * minute);
    expect(profile.executors.timeline).toHaveLength(3);
    expect(profile.analysis.coresObserved).toBe(12);
    expect(profile.analysis.utilization).toBeCloseTo(0.6, 6);
    expect(profile.source.path).toBe('databricks-system-tables://c-1');
    expect(profile.application.exitCode).toBe(0);
  });
});
