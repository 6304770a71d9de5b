import { describe, expect, it } from 'vitest';
import type { RunProfile } from '../../../eventlog/run-profile.js';
import type { EmrRunReport } from './emr-run-report.js';
import { describeEmrRun } from './emr-run-report-reader.js';
import { checkEventLogOwnership } from './event-log-ownership.js';

const t0 = Date.UTC(2026, 2, 2, 6, 0, 0);
const applicationId = 'application_1772431200000_0001';

function instance(id: string, role: 'MASTER' | 'CORE', privateIp: string | null) {
  return {
    id,
    role,
    instanceType: 'm5.xlarge',
    market: 'ON_DEMAND' as const,
    createdAt: t0,
    endedAt: t0 + 3_600_000,
    volumes: [],
    privateIp,
    privateDnsName: privateIp ? `ip-${privateIp.replaceAll('.', '-')}.ec2.internal` : null,
  };
}

function report(
  instances = [instance('ci-1', 'MASTER', '172.31.0.10'), instance('ci-2', 'CORE', '172.31.0.11')],
): EmrRunReport {
  return {
    platform: 'emr',
    region: 'us-east-1',
    cluster: {
      id: 'j-OWNER000001',
      name: 'nightly-orders',
      releaseLabel: 'emr-7.2.0',
      transient: true,
      logUri: 's3://emr-logs/',
      tags: {},
      createdAt: t0,
      readyAt: t0 + 480_000,
      endedAt: t0 + 3_600_000,
      state: 'TERMINATED',
      rootVolumeGb: null,
    },
    step: {
      id: 's-OWNER000001',
      name: 'orders-etl',
      state: 'COMPLETED',
      startedAt: t0 + 480_000,
      endedAt: t0 + 3_000_000,
    },
    shape: {
      kind: 'instance-groups',
      groups: [{ role: 'MASTER', instanceType: 'm5.xlarge', count: 1, market: 'ON_DEMAND', volumes: [] }],
      managedScaling: null,
    },
    instances,
    scope: 'cluster',
    eventLog: { location: `s3://spark-events/apps/${applicationId}`, applicationId },
  };
}

function profile(id: string | null, driverHost?: string): RunProfile {
  return {
    application: { id, startTime: t0 + 500_000, endTime: t0 + 2_900_000, sparkVersion: '3.5.0' },
    sparkConf: driverHost ? { 'spark.driver.host': driverHost } : {},
  } as unknown as RunProfile;
}

describe('an EMR step’s event log is its own', () => {
  it('accepts a log whose driver ran on one of the cluster’s instances, by address or by DNS name', () => {
    expect(() => checkEventLogOwnership(report(), profile(applicationId, '172.31.0.10'))).not.toThrow();
    // cluster deploy mode: the driver on a core node, named by its private DNS name
    expect(() =>
      checkEventLogOwnership(report(), profile(applicationId, 'ip-172-31-0-11.ec2.internal')),
    ).not.toThrow();
  });

  it('refuses a log written by a driver on another cluster, saying which host and what to change', () => {
    const check = () => checkEventLogOwnership(report(), profile(applicationId, '172.31.5.77'));
    expect(check).toThrow(
      expect.objectContaining({
        code: 'EMR_EVENT_LOG_OTHER_CLUSTER',
        message: expect.stringMatching(/172\.31\.5\.77.*j-OWNER000001.*own spark\.eventLog\.dir/),
      }),
    );
  });

  it('refuses a log of another application stored under this one’s name', () => {
    expect(() => checkEventLogOwnership(report(), profile('application_1772431200000_0002'))).toThrow(
      expect.objectContaining({ code: 'EMR_EVENT_LOG_MISMATCH' }),
    );
  });

  it('skips what it cannot compare: no driver host in the log, no addresses in an older report', () => {
    expect(() => checkEventLogOwnership(report(), profile(applicationId))).not.toThrow();
    const older = report([instance('ci-1', 'MASTER', null)]);
    expect(() => checkEventLogOwnership(older, profile(applicationId, '10.9.9.9'))).not.toThrow();
  });

  it('is checked when the run is described, so the parse step parks such a run', () => {
    expect(() => describeEmrRun(report(), profile(applicationId, '172.31.5.77'))).toThrow(
      expect.objectContaining({ code: 'EMR_EVENT_LOG_OTHER_CLUSTER' }),
    );
  });
});
