import { describe, expect, it } from 'vitest';
import { checkEventLogCompleteness, locateEventLogDir } from './event-log-location.js';
import type { LogEntry, LogStore } from './log-store.js';

function memoryStore(files: Record<string, { size: number; modifiedAt: number }>): LogStore {
  return {
    async list(path) {
      const prefix = `${path.replace(/\/+$/, '')}/`;
      const children = new Map<string, LogEntry>();
      for (const [filePath, info] of Object.entries(files)) {
        if (!filePath.startsWith(prefix)) continue;
        const [name, ...rest] = filePath.slice(prefix.length).split('/');
        if (!name) continue;
        const isDir = rest.length > 0;
        const existing = children.get(name);
        const modifiedAt = Math.max(existing?.modifiedAt ?? 0, info.modifiedAt);
        children.set(name, { path: prefix + name, name, isDir, size: isDir ? 0 : info.size, modifiedAt });
      }
      return [...children.values()];
    },
    async *read() {},
  };
}

const destination = 'dbfs:/logs';
const clusterId = '0921-101010-abc';

describe('locateEventLogDir', () => {
  const store = memoryStore({
    [`${destination}/${clusterId}/eventlog/${clusterId}_10_0_0_1/8880912756278443690/eventlog`]: {
      size: 10,
      modifiedAt: 200,
    },
    [`${destination}/${clusterId}/eventlog/${clusterId}_10_0_0_1/1234/eventlog`]: {
      size: 10,
      modifiedAt: 100,
    },
    [`${destination}/${clusterId}/driver/stdout`]: { size: 5, modifiedAt: 100 },
  });

  it('finds the folder of the run’s Spark context by listing the driver folders', async () => {
    const dir = await locateEventLogDir(store, destination, clusterId, '8880912756278443690');

    expect(dir).toBe(`${destination}/${clusterId}/eventlog/${clusterId}_10_0_0_1/8880912756278443690`);
  });

  it('picks the most recent context when the run did not say which', async () => {
    expect(await locateEventLogDir(store, destination, clusterId, undefined)).toMatch(/8880912756278443690$/);
  });

  it('says which contexts exist when the asked one is missing', async () => {
    await expect(locateEventLogDir(store, destination, clusterId, '999')).rejects.toThrow(
      /Spark context 999 .*found .*1234/,
    );
  });

  it('reports a log that has not been delivered yet', async () => {
    await expect(locateEventLogDir(memoryStore({}), destination, clusterId, '1')).rejects.toThrow(
      /no event log delivered yet/,
    );
  });
});

describe('checkEventLogCompleteness', () => {
  const part = (name: string, size: number, modifiedAt: number): LogEntry => ({
    path: `/x/${name}`,
    name,
    isDir: false,
    size,
    modifiedAt,
  });

  it('needs the live file written after the run ended', () => {
    expect(checkEventLogCompleteness([part('eventlog', 10, 90)], 100, 10)).toMatchObject({
      complete: false,
      reason: expect.stringMatching(/before the run ended/),
    });
  });

  it('needs no empty part', () => {
    const files = [part('eventlog-2026-11-21--05-00.gz', 0, 50), part('eventlog', 10, 120)];

    expect(checkEventLogCompleteness(files, 100, 10)).toMatchObject({
      complete: false,
      reason: expect.stringMatching(/still empty/),
    });
  });

  it('needs the total size unchanged since the previous look', () => {
    const files = [part('eventlog-2026-11-21--05-00.gz', 40, 50), part('eventlog', 10, 120)];

    expect(checkEventLogCompleteness(files, 100)).toMatchObject({ complete: false, totalBytes: 50 });
    expect(checkEventLogCompleteness(files, 100, 50)).toEqual({ complete: true, totalBytes: 50 });
  });

  it('trusts the cluster’s last delivery attempt over a file time from another clock', () => {
    const files = [part('eventlog', 10, 5)];

    expect(checkEventLogCompleteness(files, 100, 10, 130)).toEqual({ complete: true, totalBytes: 10 });
    expect(checkEventLogCompleteness(files, 100, 10, 90)).toMatchObject({
      complete: false,
      reason: expect.stringMatching(/last log delivery was attempted before the run ended/),
    });
  });
});
