import { describe, expect, it } from 'vitest';
import type { RunProfile } from '../../../eventlog/run-profile.js';
import type { EmrRunReport } from './emr-run-report.js';
import { describeEmrRun, parseEmrRunReport } from './emr-run-report-reader.js';
import { checkEventLogOwnership } from './event-log-ownership.js';

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

describe('an EMR step’s event log is its own', () => {
  const applicationId = 'application_1772416800000_0001';
  /** The report with each instance's private address (ci-1 at 172.31.0.11, ci-2 at …12, …). */
  const addressed: EmrRunReport = {
    ...report,
    instances: report.instances.map((instance, i) => ({
      ...instance,
      privateIp: `172.31.0.${11 + i}`,
      privateDnsName: `ip-172-31-0-${11 + i}.eu-west-1.compute.internal`,
    })),
    eventLog: { location: `s3://spark-events/apps/${applicationId}`, applicationId },
  };
  const logOf = (id: string | null, driverHost?: string) =>
    ({
      ...profile,
      application: { ...profile.application, id },
      sparkConf: driverHost ? { 'spark.driver.host': driverHost } : {},
    }) as unknown as RunProfile;

  it('accepts a log whose driver ran on one of the cluster’s instances, by address or by DNS name', () => {
    expect(() => checkEventLogOwnership(addressed, logOf(applicationId, '172.31.0.11'))).not.toThrow();
    // cluster deploy mode: the driver on a core node, named by its private DNS name
    expect(() =>
      checkEventLogOwnership(addressed, logOf(applicationId, 'ip-172-31-0-12.ec2.internal')),
    ).not.toThrow();
  });

  it('refuses a log written by a driver on another cluster, saying which host and what to change', () => {
    expect(() => checkEventLogOwnership(addressed, logOf(applicationId, '172.31.5.77'))).toThrow(
      expect.objectContaining({
        code: 'EMR_EVENT_LOG_OTHER_CLUSTER',
        message: expect.stringMatching(/172\.31\.5\.77.*j-READER000001.*own spark\.eventLog\.dir/),
      }),
    );
  });

  it('refuses a log of another application stored under this one’s name', () => {
    expect(() => checkEventLogOwnership(addressed, logOf('application_1772416800000_0002'))).toThrow(
      expect.objectContaining({ code: 'EMR_EVENT_LOG_MISMATCH' }),
    );
  });

  it('skips what it cannot compare: no driver host in the log, no addresses in an older report', () => {
    expect(() => checkEventLogOwnership(addressed, logOf(applicationId))).not.toThrow();
    expect(() =>
      checkEventLogOwnership({ ...report, eventLog: addressed.eventLog }, logOf(applicationId, '10.9.9.9')),
    ).not.toThrow();
  });

  it('is checked when the run is described, so the parse step parks such a run', () => {
    expect(() => describeEmrRun(addressed, logOf(applicationId, '172.31.5.77'))).toThrow(
      expect.objectContaining({ code: 'EMR_EVENT_LOG_OTHER_CLUSTER' }),
    );
  });
});
