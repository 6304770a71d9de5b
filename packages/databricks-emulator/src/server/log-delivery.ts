import { gzipSync } from 'node:zlib';
import {
  databricksMetadataLine,
  type EventLogEntry,
  renderEventLog,
  sparkVersionFor,
} from '../physics/event-log-writer.js';
import type { ClusterRecord } from './emulator-state.js';
import { VirtualFs } from './virtual-fs.js';

const hourMs = 3_600_000;

/** Where delivered files go: the emulated DBFS/Volumes file system, or an S3 bucket. */
export interface LogSink {
  write(path: string, data: Uint8Array, modifiedAtMs: number): void;
  mkdirs(path: string, modifiedAtMs: number): void;
  /** Deletes a folder and everything below it. */
  removeTree(path: string): void;
  /** Runs `done` once everything written so far has landed. */
  afterWrites(done: () => void): void;
}

export interface LogSinks {
  fs: VirtualFs;
  /** Absent when the emulator was given no S3 endpoint: S3 destinations then receive nothing. */
  s3?: LogSink | undefined;
}

function fsSink(fs: VirtualFs): LogSink {
  return {
    write: (path, data, modifiedAtMs) => fs.write(path, data, modifiedAtMs),
    mkdirs: (path, modifiedAtMs) => fs.mkdirs(path, modifiedAtMs),
    removeTree: (path) => fs.delete(path, true),
    afterWrites: (done) => done(),
  };
}

export interface DeliveryFaults {
  truncateEventLog: boolean;
  missingEventLog: boolean;
}

/**
 * Where the cluster's logs go: `<destination>/<cluster_id>` (`s3://bucket/prefix/<cluster_id>` for
 * S3), or undefined without `cluster_log_conf`.
 */
export function clusterLogRoot(cluster: ClusterRecord): string | undefined {
  const conf = cluster.spec.cluster_log_conf;
  const s3Destination = conf?.s3?.destination;
  if (s3Destination) return `${s3Destination.replace(/\/+$/, '')}/${cluster.clusterId}`;
  const destination = conf?.dbfs?.destination ?? conf?.volumes?.destination;
  if (!destination) return undefined;
  return `${VirtualFs.normalize(destination)}/${cluster.clusterId}`;
}

function sinkFor(sinks: LogSinks, cluster: ClusterRecord): LogSink | undefined {
  if (cluster.spec.cluster_log_conf?.s3?.destination) return sinks.s3;
  return fsSink(sinks.fs);
}

/** The folder holding `eventlog` and its rolled parts (the middle name joins cluster id and driver IP). */
export function eventLogDirectory(cluster: ClusterRecord): string | undefined {
  const root = clusterLogRoot(cluster);
  if (!root) return undefined;
  const ip = cluster.identity.driverIp.replace(/\./g, '_');
  return `${root}/eventlog/${cluster.clusterId}_${ip}/${cluster.identity.sparkContextId}`;
}

export function clusterEventLog(cluster: ClusterRecord): EventLogEntry[] {
  cluster.eventLog ??= renderEventLog(cluster.simulation, cluster.identity, cluster.requestedAtMs);
  const cut = cluster.cutAtMs;
  return cut === undefined ? cluster.eventLog : cluster.eventLog.filter((entry) => entry.timeMs <= cut);
}

function partName(hourStartMs: number): string {
  const iso = new Date(hourStartMs).toISOString();
  return `eventlog-${iso.slice(0, 10)}--${iso.slice(11, 13)}-00.gz`;
}

/**
 * Writes what Databricks would have delivered by `upToMs`: hourly-rolled gzip parts, each starting with
 * its own `DBCEventLoggingListenerMetadata` header, and the live plain `eventlog` holding the latest hour.
 */
export function deliverClusterLogs(
  sinks: LogSinks,
  cluster: ClusterRecord,
  upToMs: number,
  deliveredAtMs: number,
  faults: DeliveryFaults,
): void {
  const root = clusterLogRoot(cluster);
  const directory = eventLogDirectory(cluster);
  const fs = sinkFor(sinks, cluster);
  if (!root || !directory || !fs) return;
  // clusters/get reports the attempt once its files are in place, as a finished delivery would
  const recordAttempt = () =>
    fs.afterWrites(() => {
      cluster.lastLogAttemptMs = Math.max(cluster.lastLogAttemptMs ?? 0, deliveredAtMs);
    });
  const readyAt = cluster.requestedAtMs + cluster.simulation.clusterReadyMs;
  fs.write(
    `${root}/driver/stdout`,
    Buffer.from(`${new Date(readyAt).toISOString()} Driver started on ${cluster.identity.driverIp}\n`),
    deliveredAtMs,
  );
  fs.write(`${root}/driver/stderr`, Buffer.from(''), deliveredAtMs);
  fs.write(
    `${root}/driver/log4j-active.log`,
    Buffer.from(
      `${new Date(readyAt).toISOString()} INFO SparkContext: Running Spark on cluster ${cluster.clusterId}\n`,
    ),
    deliveredAtMs,
  );
  fs.mkdirs(`${root}/init_scripts`, deliveredAtMs);
  // a lost event log: what the periodic deliveries left is gone too, so nothing of it can be read
  if (faults.missingEventLog) fs.removeTree(`${root}/eventlog`);
  const entries = faults.missingEventLog
    ? []
    : clusterEventLog(cluster).filter((entry) => entry.timeMs <= upToMs);
  if (entries.length === 0) {
    recordAttempt();
    return;
  }
  const sparkVersion = sparkVersionFor(cluster.sim.sparkVersion);
  const firstHour = Math.floor(entries[0]!.timeMs / hourMs) * hourMs;
  const lastHour = Math.floor(entries[entries.length - 1]!.timeMs / hourMs) * hourMs;
  let rollover = 0;
  for (let hour = firstHour; hour < lastHour; hour += hourMs) {
    const lines = entries.filter((entry) => entry.timeMs >= hour && entry.timeMs < hour + hourMs);
    const body = [
      databricksMetadataLine(sparkVersion, hour, rollover, cluster.identity.sparkContextId),
      ...lines.map((entry) => entry.line),
    ].join('\n');
    fs.write(
      `${directory}/${partName(hour)}`,
      gzipSync(`${body}\n`),
      Math.min(deliveredAtMs, hour + hourMs + 60_000),
    );
    rollover += 1;
  }
  const live = entries.filter((entry) => entry.timeMs >= lastHour);
  let text = `${[
    databricksMetadataLine(sparkVersion, lastHour, rollover, cluster.identity.sparkContextId),
    ...live.map((entry) => entry.line),
  ].join('\n')}\n`;
  if (faults.truncateEventLog) text = text.slice(0, Math.floor(text.length * 0.6));
  fs.write(`${directory}/eventlog`, Buffer.from(text), deliveredAtMs);
  recordAttempt();
}
