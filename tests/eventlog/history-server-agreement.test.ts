/**
 * Agreement with Apache Spark's own History Server: Spark's HistoryServerSuite golden answers
 * (tests/fixtures/eventlog/spark-test-data, Apache-2.0) compared field by field with the RunProfile
 * of the same event logs, for every figure both compute.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeEventLog, type RunProfile } from 'setpoint/eventlog/index';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  compareExecutors,
  compareJobs,
  compareStages,
  type Json,
  keptProperties,
} from './support/history-server-compare.js';

const fixtures = join(import.meta.dirname, '../fixtures/eventlog/spark-test-data');
const logDir = join(fixtures, 'spark-events');

function expectation<T = Json[]>(name: string): T {
  return JSON.parse(readFileSync(join(fixtures, 'expectations', `${name}_expectation.json`), 'utf8')) as T;
}

const profiles = new Map<string, RunProfile>();

beforeAll(async () => {
  for (const file of readdirSync(logDir)) profiles.set(file, await analyzeEventLog(join(logDir, file)));
});

function profileOf(appId: string, attemptId?: string): RunProfile {
  const match = [...profiles.values()].find(
    (profile) =>
      profile.application.id === appId &&
      (attemptId === undefined || profile.application.attemptId === attemptId),
  );
  if (!match) throw new Error(`no fixture log for ${appId} attempt ${attemptId}`);
  return match;
}

describe('applications list', () => {
  const apps = expectation<Array<{ id: string; name: string; attempts: Json[] }>>('application_list_json');

  it('lists every fixture application', () => {
    expect(apps).toHaveLength(16);
  });

  for (const app of apps) {
    for (const attempt of app.attempts) {
      const attemptId = typeof attempt.attemptId === 'string' ? attempt.attemptId : undefined;
      it(`${app.id}${attemptId ? ` attempt ${attemptId}` : ''}`, () => {
        const { application } = profileOf(app.id, attemptId);
        expect(application.name).toBe(app.name);
        expect(application.startTime).toBe(attempt.startTimeEpoch);
        expect(application.endTime).toBe(attempt.endTimeEpoch);
        expect(application.durationMs).toBe(attempt.duration);
        expect(application.user).toBe(attempt.sparkUser);
        expect(application.sparkVersion ?? '').toBe(attempt.appSparkVersion);
        expect(application.endTime !== null).toBe(attempt.completed);
      });
    }
  }
});

describe('jobs', () => {
  it('local-1422981780767', () =>
    compareJobs(profileOf('local-1422981780767'), expectation('job_list_json')));
  it('local-1426533911241 attempt 1', () =>
    compareJobs(
      profileOf('local-1426533911241', '1'),
      expectation('job_list_from_multi_attempt_app_json_1_'),
    ));
  it('local-1426533911241 attempt 2', () =>
    compareJobs(
      profileOf('local-1426533911241', '2'),
      expectation('job_list_from_multi_attempt_app_json_2_'),
    ));
});

describe('stages', () => {
  it('local-1422981780767', () =>
    compareStages(profileOf('local-1422981780767'), expectation('stage_list_json')));
  it('app-20200706201101-0003', () =>
    compareStages(profileOf('app-20200706201101-0003'), expectation('stage_list_with_peak_metrics')));
  it('local-1426533911241 attempt 1', () =>
    compareStages(profileOf('local-1426533911241', '1'), expectation('stage_list_with_accumulable_json')));
  const singleStages: Array<[string, string]> = [
    ['app-20180109111548-0000', 'excludeOnFailure_for_stage'],
    ['application_1516285256255_0012', 'excludeOnFailure_node_for_stage'],
    ['application_1628109047826_1317105', 'stage_with_speculation_summary'],
    ['local-1642039451826', 'one_stage_json_with_partitionId'],
  ];
  for (const [appId, file] of singleStages) {
    it(`${appId} (${file})`, () => {
      const answer = expectation<Json | Json[]>(file);
      compareStages(profileOf(appId), Array.isArray(answer) ? answer : [answer]);
    });
  }
});

describe('executors', () => {
  const cases: Array<[string, string]> = [
    ['local-1422981780767', 'executor_list_json'],
    ['application_1553914137147_0018', 'executor_list_with_executor_metrics_json'],
    ['app-20161116163331-0000', 'executor_node_excludeOnFailure'],
    ['app-20161115172038-0000', 'executor_node_excludeOnFailure_unexcluding'],
    ['application_1555004656427_0144', 'executor_resource_information'],
  ];
  for (const [appId, file] of cases) {
    it(appId, () => compareExecutors(profileOf(appId), expectation(file)));
  }
});

describe('environment', () => {
  it('app-20161116163331-0000 Spark properties', () => {
    const environment = expectation<{ sparkProperties: Array<[string, string]> }>('app_environment');
    const profile = profileOf('app-20161116163331-0000');
    expect(profile.sparkConf).toEqual(keptProperties(environment.sparkProperties));
    expect(profile.parse.sparkProperties.seen).toBe(environment.sparkProperties.length);
    expect(profile.parse.sparkProperties.kept).toBe(Object.keys(profile.sparkConf).length);
  });
});
