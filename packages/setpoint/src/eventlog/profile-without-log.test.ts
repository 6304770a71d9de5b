import { describe, expect, it } from 'vitest';
import { parseReportWithoutLog } from './profile-without-log.js';
import { RunAggregator } from './run-aggregator.js';
import { parseReportSchema } from './run-profile.js';

describe('parseReportWithoutLog', () => {
  it('reports what a parse that read nothing reports, with its one warning', () => {
    const nothingRead = new RunAggregator().finish().parse;
    const withoutLog = parseReportWithoutLog('no event log: profile from the platform');

    expect(parseReportSchema.parse(withoutLog)).toEqual(withoutLog);
    expect({ ...withoutLog, warnings: nothingRead.warnings }).toEqual(nothingRead);
    expect(withoutLog.warnings).toEqual(['no event log: profile from the platform']);
  });
});
