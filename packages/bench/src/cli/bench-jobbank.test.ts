import { spawnSync } from 'node:child_process';
import { ValidationError } from '@setpoint/foundation/errors';
import { describe, expect, it } from 'vitest';
import { jobBankOptionsFrom } from './bench-jobbank.js';

const defaults = { runs: '12', seeds: '3', firstSeed: '1' };

describe('setpoint bench jobbank options', () => {
  it('gives every project the learning-run miss budget and preference asked for', () => {
    expect(jobBankOptionsFrom({ ...defaults, learningMissBudget: '3', preference: 'economy' })).toEqual({
      runs: 12,
      seeds: 3,
      firstSeed: 1,
      agentless: false,
      projectSettings: { preference: 'economy', learningMissBudget: 3 },
    });
    expect(jobBankOptionsFrom({ ...defaults, learningMissBudget: '0' }).projectSettings).toEqual({
      learningMissBudget: 0,
    });
  });

  it('leaves the project defaults alone when no setting is given', () => {
    expect(jobBankOptionsFrom({ ...defaults, agentless: true })).toEqual({
      runs: 12,
      seeds: 3,
      firstSeed: 1,
      agentless: true,
    });
  });

  it('adds the EMR workloads only when asked', () => {
    expect(jobBankOptionsFrom({ ...defaults, emr: true }).emr).toBe(true);
    expect(jobBankOptionsFrom(defaults)).not.toHaveProperty('emr');
  });

  it('adds the serverless jobs only when asked', () => {
    expect(jobBankOptionsFrom({ ...defaults, serverless: true }).serverless).toBe(true);
    expect(jobBankOptionsFrom(defaults)).not.toHaveProperty('serverless');
  });

  it('delivers runs one at a time only when asked', () => {
    expect(jobBankOptionsFrom({ ...defaults, oneAtATime: true }).delivery).toBe('one-at-a-time');
    expect(jobBankOptionsFrom(defaults)).not.toHaveProperty('delivery');
  });

  it('refuses a budget outside the project setting’s range', () => {
    for (const text of ['8', '-1', '1.5', 'three']) {
      expect(() => jobBankOptionsFrom({ ...defaults, learningMissBudget: text })).toThrow(ValidationError);
    }
    expect(() => jobBankOptionsFrom({ ...defaults, learningMissBudget: '8' })).toThrow(
      /--learning-miss-budget/,
    );
  });

  it('exits with one readable line before starting anything', () => {
    const result = spawnSync('node', ['bin/setpoint.js', 'bench', 'jobbank', '--learning-miss-budget', '9'], {
      encoding: 'utf8',
    });
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/--learning-miss-budget/);
  });
});
