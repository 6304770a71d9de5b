import { describe, expect, it } from 'vitest';
import { wantsBoundedMalloc } from './bounded-malloc.js';

describe('wantsBoundedMalloc', () => {
  it('relaunches the interactive demo on Linux only, once', () => {
    expect(wantsBoundedMalloc(['demo'], {}, 'linux')).toBe(true);
    expect(wantsBoundedMalloc(['--debug', 'demo', '--speed', '4'], {}, 'linux')).toBe(true);
    // the child (or a user who chose a value) runs the command itself
    expect(wantsBoundedMalloc(['demo'], { MALLOC_ARENA_MAX: '2' }, 'linux')).toBe(false);
    expect(wantsBoundedMalloc(['demo'], {}, 'darwin')).toBe(false);
    expect(wantsBoundedMalloc(['demo', '--headless'], {}, 'linux')).toBe(false);
    expect(wantsBoundedMalloc(['demo', '--help'], {}, 'linux')).toBe(false);
    expect(wantsBoundedMalloc(['serve'], {}, 'linux')).toBe(false);
    expect(wantsBoundedMalloc(['--version'], {}, 'linux')).toBe(false);
  });
});
