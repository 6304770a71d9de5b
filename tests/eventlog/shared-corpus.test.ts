/**
 * Every event log in ../shared/corpus (Spark's test logs and the public real-world corpus) parses,
 * and the real Databricks, EMR and Dataproc logs fill their platform hints. ../shared exists on
 * developer machines and in CI only, so this suite skips cleanly without it.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { isAppError } from '@setpoint/foundation/errors';
import { analyzeEventLog, findEventLogs, type RunProfile } from 'setpoint/eventlog/index';
import { describe, expect, it } from 'vitest';

const corpus = join(import.meta.dirname, '../../../shared/corpus');
const present = existsSync(join(corpus, 'eventlogs'));
const rapids = join(corpus, 'eventlogs/spark-rapids-tools');
const qualification = join(rapids, 'core/src/test/resources/spark-events-qualification');

/** Files that are part of a multi-file layout are read through their directory instead. */
const layoutDirectories = ['eventlog_v2_local-1623876083964', 'db_sim_eventlog'];
/** Not event logs at all, on purpose. */
const notEventLogs = ['driverlog'];

function corpusFiles(directory: string): string[] {
  const files: string[] = [];
  for (const name of readdirSync(directory)) {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) {
      if (name === 'HistoryServerExpectations') continue; // REST answers, not logs
      if (layoutDirectories.includes(name)) files.push(path);
      else files.push(...corpusFiles(path));
    } else if (name !== 'SOURCES.txt') {
      files.push(path);
    }
  }
  return files;
}

/** Warnings that describe real gaps in a log rather than a reading problem. */
const factualWarnings = [
  /^no SparkListenerApplicationEnd/,
  /^no SparkListenerApplicationStart/,
  /lines? (is|are) not valid event JSON/,
  /last line is incomplete/,
  /events? had an unexpected shape/,
];

describe.skipIf(!present)('the shared corpus', () => {
  const files = present ? corpusFiles(corpus) : [];

  it('holds the logs this suite expects', () => {
    expect(files.length).toBeGreaterThan(100);
  });

  for (const path of files) {
    const name = relative(corpus, path);
    const expectFailure = notEventLogs.some((bad) => path.endsWith(bad));
    it(`${name} ${expectFailure ? 'is rejected as not an event log' : 'parses'}`, async () => {
      const units = await findEventLogs(path);
      if (expectFailure) {
        await expect(analyzeEventLog(path)).rejects.toSatisfy(
          (error: unknown) => isAppError(error) && error.code === 'EVENTLOG_NOT_RECOGNISED',
        );
        return;
      }
      expect(units).toHaveLength(1);
      const profile = await analyzeEventLog(path);
      expect(profile.parse.events).toBeGreaterThan(0);
      for (const warning of profile.parse.warnings) {
        expect(
          factualWarnings.some((pattern) => pattern.test(warning)),
          warning,
        ).toBe(true);
      }
    });
  }
});

describe.skipIf(!present)('platform hints from real clusters', () => {
  async function profile(path: string): Promise<RunProfile> {
    return analyzeEventLog(join(qualification, path));
  }

  it('Databricks on AWS, DBR 13.3 Photon', async () => {
    const { platform, application } = await profile('nds_q88_photon_db_13_3.zstd');
    expect(platform.kind).toBe('databricks');
    expect(platform.cloud).toBe('AWS');
    expect(platform.workerNodeType).toBe('m6gd.2xlarge');
    expect(platform.driverNodeType).toBe('m6gd.xlarge');
    expect(platform.workers).toBe(2);
    expect(platform.photon).toBe(true);
    expect(platform.runtimeVersion).toBe('13.3.x-aarch64-photon-scala2.12');
    expect(platform.region).toBe('us-west-2');
    expect(platform.availability).toBe('SPOT_WITH_FALLBACK');
    expect(application.sparkVersion).toBe('3.4.1');
    expect(application.sparkContextId).toMatch(/^\d{17,}$/);
  });

  it('Databricks on Azure', async () => {
    const { platform } = await profile('db_subExecution_id.zstd');
    expect(platform.kind).toBe('databricks');
    expect(platform.cloud).toBe('Azure');
    expect(platform.workerNodeType).toBe('Standard_E8s_v3');
    expect(platform.runtimeVersion).toMatch(/^11\.3\.x/);
    expect(platform.photon).toBe(false);
  });

  it('Databricks ML runtime on AWS', async () => {
    const { platform } = await profile('xgboost_eventlog.zstd');
    expect(platform.kind).toBe('databricks');
    expect(platform.workerNodeType).toBe('m4.2xlarge');
    expect(platform.runtimeVersion).toMatch(/^10\.4\.x-cpu-ml/);
  });

  it('EMR', async () => {
    const { platform, application } = await profile('multiple_attempts/attempt_1_eventlog.zstd');
    expect(platform.kind).toBe('emr');
    expect(platform.cloud).toBe('AWS');
    expect(application.sparkVersion).toBe('3.3.0-amzn-0');
  });

  it('Dataproc', async () => {
    const { platform } = await profile('nds_q72_dataproc_2_2.zstd');
    expect(platform.kind).toBe('dataproc');
    expect(platform.cloud).toBe('GCP');
  });

  it('the rolling and Databricks-style copies of one app agree', async () => {
    const [rolling, databricks] = await Promise.all([
      profile('eventlog_v2_local-1623876083964'),
      profile('db_sim_eventlog'),
    ]);
    expect(databricks.totals).toEqual(rolling.totals);
    expect(databricks.stages).toEqual(rolling.stages);
    expect(rolling.totals.tasks).toBe(2801);
  });
});
