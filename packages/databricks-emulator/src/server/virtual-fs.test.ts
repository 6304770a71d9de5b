import { describe, expect, it } from 'vitest';
import { VirtualFs } from './virtual-fs.js';

describe('VirtualFs lifecycle rule', () => {
  it('expires files modified before the cutoff and keeps newer ones', () => {
    const fs = new VirtualFs();
    fs.write('/logs/old/eventlog', new Uint8Array([1]), 1_000);
    fs.write('/logs/new/eventlog', new Uint8Array([2]), 5_000);

    expect(fs.expireFilesBefore(5_000)).toBe(1);
    expect(fs.stat('/logs/old/eventlog')).toBeUndefined();
    expect(fs.stat('/logs/new/eventlog')).toBeDefined();
  });
});
