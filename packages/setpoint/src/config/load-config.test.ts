import { ConfigError } from '@setpoint/foundation/errors';
import { describe, expect, it } from 'vitest';
import { loadConfig } from './load-config.js';

describe('loadConfig', () => {
  it('applies defaults when nothing is set', () => {
    const config = loadConfig({}, {});

    expect(config).toMatchObject({ dataDir: '.setpoint', host: '127.0.0.1', port: 8080, logLevel: 'info' });
    expect(config.databaseUrl).toBeUndefined();
  });

  it('lets flags win over environment variables', () => {
    const config = loadConfig(
      { port: '9090' },
      { SETPOINT_PORT: '7070', SETPOINT_DATA_DIR: '/var/setpoint' },
    );

    expect(config.port).toBe(9090);
    expect(config.dataDir).toBe('/var/setpoint');
  });

  it('rejects a non-postgres database URL with a message naming the setting', () => {
    expect(() => loadConfig({}, { SETPOINT_DATABASE_URL: 'mysql://x' })).toThrow(ConfigError);
    expect(() => loadConfig({}, { SETPOINT_DATABASE_URL: 'mysql://x' })).toThrow(/databaseUrl.*postgres/);
  });

  it('rejects an out-of-range port', () => {
    expect(() => loadConfig({ port: '70000' }, {})).toThrow(/port/);
  });
});
