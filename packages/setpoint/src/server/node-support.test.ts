import { describe, expect, it } from 'vitest';
import { nodeSupportNotice } from './node-support.js';

describe('nodeSupportNotice', () => {
  it('says nothing on the supported LTS lines', () => {
    expect(nodeSupportNotice('v22.23.5')).toBeNull();
    expect(nodeSupportNotice('v24.22.3')).toBeNull();
  });

  it('names the way off Node 20 and what ends it', () => {
    expect(nodeSupportNotice('v20.20.2')).toMatch(
      /v20\.20\.2 is past its end of life.*January 2027.*22 or 24/,
    );
  });

  it('says which lines are tested on any other', () => {
    expect(nodeSupportNotice('v25.1.0')).toBe(
      'Node.js v25.1.0 is not a release line Setpoint is tested on (20, 22, 24)',
    );
  });
});
