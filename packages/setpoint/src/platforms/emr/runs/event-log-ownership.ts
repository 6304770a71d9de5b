import { ValidationError } from '@setpoint/foundation/errors';
import type { RunProfile } from '../../../eventlog/run-profile.js';
import type { EmrRunReport } from './emr-run-report.js';

/** The address an EC2 private DNS name spells (`ip-172-31-0-10.ec2.internal` → `172.31.0.10`). */
function addressOf(host: string): string {
  const spelled = /^ip-(\d{1,3})-(\d{1,3})-(\d{1,3})-(\d{1,3})(?:\.|$)/.exec(host.toLowerCase());
  return spelled ? spelled.slice(1, 5).join('.') : host.toLowerCase();
}

/**
 * Checks that a step's event log is the step's own. EMR names an event log by its YARN application id
 * (`application_<resource-manager start>_<n>`), so two clusters whose resource managers started in the
 * same millisecond, writing to one shared `spark.eventLog.dir`, overwrite each other's logs, and the
 * step would be profiled from another cluster's run. The log must name the application the step's
 * stderr named, and its driver must have run on one of the step's cluster's instances. Either check is
 * skipped when the report or the log lacks what it compares (reports from before instance addresses
 * were kept, logs without `spark.driver.host`).
 */
export function checkEventLogOwnership(report: EmrRunReport, profile: RunProfile): void {
  const expected = report.eventLog.applicationId;
  const where = report.eventLog.location ?? 'the event log';
  const found = profile.application.id;
  if (expected && found && found !== expected)
    throw new ValidationError(
      'EMR_EVENT_LOG_MISMATCH',
      `${where} is the log of application ${found}, but step ${report.step.id} ran ${expected}; the object under that name was replaced or mislabelled`,
    );
  const driverHost = profile.sparkConf['spark.driver.host'];
  const addresses = new Set(
    report.instances.flatMap((instance) =>
      [instance.privateIp, instance.privateDnsName].flatMap((value) => (value ? [addressOf(value)] : [])),
    ),
  );
  if (!driverHost || addresses.size === 0 || addresses.has(addressOf(driverHost))) return;
  throw new ValidationError(
    'EMR_EVENT_LOG_OTHER_CLUSTER',
    `${where} was written by a driver on ${driverHost}, which is none of cluster ${report.cluster.id}'s instances: another cluster ran an application with the same id into the same spark.eventLog.dir and replaced this step's log; give each cluster its own spark.eventLog.dir prefix`,
  );
}
