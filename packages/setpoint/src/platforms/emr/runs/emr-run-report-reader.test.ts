import { describe, expect, it } from 'vitest';
import type { RunProfile } from '../../../eventlog/run-profile.js';
import type { EmrRunReport } from './emr-run-report.js';
import { describeEmrRun, parseEmrRunReport } from './emr-run-report-reader.js';

const t0 = Date.UTC(2026, 2, 2, 2, 0, 0);
const report: EmrRunReport = {
  platform: 'emr',
  region: 'eu-west-1',
  cluster: {
    id: 'j-READER000001',
    name: 'nightly-orders',
    releaseLabel: 'emr-7.2.0',
    transient: true,
    logUri: 's3://logs/',
    tags: { 'setpoint:recommendation-id': 'rec_42' },
    createdAt: t0,
    readyAt: t0 + 480_000,
    endedAt: t0 + 3_600_000,
    state: 'TERMINATED',
    rootVolumeGb: null,
  },
  step: {
    id: 's-READER000001',
    name: 'orders-etl',
    state: 'FAILED',
    startedAt: t0 + 480_000,
    endedAt: t0 + 3_000_000,
  },
  shape: {
    kind: 'instance-groups',
    groups: [
      { role: 'MASTER', instanceType: 'm5.xlarge', count: 1, market: 'ON_DEMAND', volumes: [] },
      { role: 'CORE', instanceType: 'r5.2xlarge', count: 2, market: 'ON_DEMAND', volumes: [] },
      { role: 'TASK', instanceType: 'r5.2xlarge', count: 1, market: 'SPOT', volumes: [] },
    ],
    managedScaling: null,
  },
  instances: [
    {
      id: 'ci-1',
      role: 'MASTER',
      instanceType: 'm5.xlarge',
      market: 'ON_DEMAND',
      createdAt: t0,
      endedAt: t0 + 3_600_000,
      volumes: [],
    },
    {
      id: 'ci-2',
      role: 'CORE',
      instanceType: 'r5.2xlarge',
      market: 'ON_DEMAND',
      createdAt: t0,
      endedAt: t0 + 3_600_000,
      volumes: [],
    },
    {
      id: 'ci-3',
      role: 'CORE',
      instanceType: 'r5.2xlarge',
      market: 'ON_DEMAND',
      createdAt: t0,
      endedAt: t0 + 3_600_000,
      volumes: [],
    },
    {
      id: 'ci-4',
      role: 'TASK',
      instanceType: 'r5.2xlarge',
      market: 'SPOT',
      createdAt: t0,
      endedAt: t0 + 3_600_000,
      volumes: [],
    },
  ],
  scope: 'cluster',
  eventLog: { location: null, applicationId: null },
};
const profile = {
  application: { startTime: t0 + 500_000, endTime: t0 + 2_990_000, sparkVersion: '3.5.0' },
  sparkConf: {},
} as unknown as RunProfile;

describe('EMR run reports', () => {
  it('describes a run: facts from the instances, the report as its configuration, the step’s outcome', () => {
    const run = describeEmrRun(report, profile);
    expect(run.facts).toEqual({
      source: 'cluster_report',
      cloud: 'aws',
      region: 'eu-west-1',
      nodeTypeId: 'r5.2xlarge',
      driverNodeTypeId: 'm5.xlarge',
      workers: 3,
      autoscale: null,
      photon: false,
      availability: 'ON_DEMAND+SPOT',
      sparkVersion: '3.5.0',
    });
    expect(run.status).toBe('FAILED');
    expect(run.recommendationId).toBe('rec_42');
    expect([run.startedAt, run.endedAt]).toEqual([t0 + 500_000, t0 + 2_990_000]);
    expect(run.configuration).toEqual(report);
  });

  it('rejects an invalid upload with the first problem, and a run without a report', () => {
    expect(() => parseEmrRunReport({ ...report, cluster: { ...report.cluster, id: 'cluster-1' } })).toThrow(
      /invalid EMR cluster report: cluster\.id/,
    );
    expect(() => describeEmrRun(null, profile)).toThrow(/needs its cluster report/);
  });
});
