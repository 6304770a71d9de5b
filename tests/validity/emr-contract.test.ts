import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { checkEmrRequest, type EmrRequest, emrRules } from '@setpoint/validity/emr';
import fc from 'fast-check';
import type { EmrChoice } from 'setpoint/platforms/emr/recommender/emr-choice';
import { emrConfigurationOf } from 'setpoint/platforms/emr/recommender/emr-configuration';
import { describe, expect, it } from 'vitest';
import { pythonForMoto } from '../support/moto-server.js';
import { describeFull } from '../support/tiers.js';
import { runJobFlowInput } from './emr-arbitraries.js';

type Labelled = EmrRequest & { id: string };

/** The launch configurations Setpoint builds over a grid of the choices its EMR recommender makes. */
function setpointLaunches(): Labelled[] {
  const launches: Labelled[] = [];
  for (const collection of ['instance-groups', 'instance-fleets'] as const)
    for (const workerType of ['m5.xlarge', 'r5.2xlarge', 'c5.4xlarge'])
      for (const [core, task] of [
        [1, 0],
        [2, 6],
        [4, 12],
      ] as const)
        for (const taskMarket of ['on-demand', 'spot', 'spot-with-fallback'] as const)
          for (const longRunning of [false, true])
            for (const managedScaling of [false, true]) {
              if (taskMarket === 'spot-with-fallback' && collection === 'instance-groups') continue;
              const choice: EmrChoice = {
                collection,
                primaryType: 'm5.xlarge',
                workerType,
                core,
                task,
                taskMarket,
                volumes:
                  task > 6
                    ? [{ volumeType: 'gp3', sizeGb: 256, throughputMibps: 250 }]
                    : [{ volumeType: 'gp2', sizeGb: 64 }],
                rootVolumeGb: null,
                longRunning,
                managedScaling,
              };
              launches.push({
                id: `${collection}/${workerType}/${core}+${task}/${taskMarket}/${longRunning ? 'long' : 'transient'}/${managedScaling ? 'scaling' : 'fixed'}`,
                operation: 'RunJobFlow',
                input: { Name: 'nightly-etl', ...emrConfigurationOf(choice) },
              });
            }
  return launches;
}

const launches = setpointLaunches();

describe('the EMR launch configurations Setpoint builds', () => {
  it('break no rule of the EMR contract', () => {
    expect(launches.length).toBeGreaterThan(100);
    for (const launch of launches) expect(checkEmrRequest(launch, {}), launch.id).toEqual([]);
  });
});

/** botocore's and moto's verdicts on a corpus (`emr_oracle.py` with the PyPI venv's Python). */
function oracle(
  corpus: readonly Labelled[],
): Array<{ id: string; botocore: string[]; moto?: string | null }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'setpoint-emr-oracle-'));
  try {
    const file = path.join(dir, 'corpus.json');
    writeFileSync(file, JSON.stringify(corpus));
    const script = path.join(import.meta.dirname, 'emr_oracle.py');
    const run = spawnSync(pythonForMoto, [script, file], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      timeout: 120_000,
    });
    if (run.status !== 0) throw new Error(`the EMR oracle failed (${run.status}): ${run.stderr}`);
    return JSON.parse(run.stdout);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describeFull(
  'botocore and moto judge EMR requests as the contract does',
  'botocore and moto from PyPI (SETPOINT_PYTHON)',
  () => {
    it("botocore refuses exactly what the contract's parameter rule refuses, and moto launches every request the contract accepts", () => {
      const random = fc.sample(runJobFlowInput, { numRuns: 300, seed: 34 });
      const corpus: Labelled[] = [
        ...launches,
        ...random.map((input, index) => ({ id: `random-${index}`, operation: 'RunJobFlow' as const, input })),
      ];
      const answer = oracle(corpus);
      expect(answer).toHaveLength(corpus.length);
      const parameters = emrRules.find((rule) => rule.name === 'parameters')?.name;
      let refusedByBotocore = 0;
      let refusedByContract = 0;
      answer.forEach((result, index) => {
        const request = corpus[index] as Labelled;
        expect(result.id).toBe(request.id);
        const violations = checkEmrRequest(request, {});
        const byParameters = violations.filter((violation) => violation.rule === parameters);
        if (result.botocore.length > 0) refusedByBotocore += 1;
        if (violations.length > 0) refusedByContract += 1;
        expect(
          result.botocore.length > 0,
          `${result.id}: botocore ${JSON.stringify(result.botocore)} vs contract ${JSON.stringify(byParameters)}`,
        ).toBe(byParameters.length > 0);
        if (violations.length === 0) expect(result.moto, result.id).toBeNull();
      });
      // both verdicts came up often enough to mean something
      expect(refusedByBotocore).toBeGreaterThan(10);
      expect(refusedByContract).toBeGreaterThan(refusedByBotocore);
      expect(refusedByContract).toBeLessThan(corpus.length - 100);
    });
  },
);
