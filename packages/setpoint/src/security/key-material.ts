import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '@setpoint/foundation/errors';
import { type MasterKey, parseMasterKeys } from './secret-box.js';

export interface KeyMaterial {
  masterKeys: MasterKey[];
  serverSecret: Buffer;
}

export interface KeyMaterialSources {
  dataDir: string;
  masterKey?: string | undefined;
  serverSecret?: string | undefined;
}

/**
 * Keys come from configuration; when absent they are generated once into dataDir (mode 0600) so a
 * single-machine install works without setup. A fleet must configure both explicitly so every
 * process (API, workers, `setpoint keys`) shares them.
 */
export function loadKeyMaterial(sources: KeyMaterialSources): KeyMaterial {
  const masterKeys = parseMasterKeys(
    sources.masterKey ?? readOrCreate(sources.dataDir, 'master.key', newMasterKeyLine),
  );
  const serverSecret = Buffer.from(
    sources.serverSecret ??
      readOrCreate(sources.dataDir, 'server-secret', () => randomBytes(32).toString('base64')),
    'base64',
  );
  if (serverSecret.length < 32)
    throw new ConfigError('serverSecret must decode to at least 32 bytes of base64');
  return { masterKeys, serverSecret };
}

/** Where the master key comes from, for messages: the setting, or the file in the data directory. */
export function masterKeyLocation(sources: KeyMaterialSources): string {
  return sources.masterKey !== undefined ? 'SETPOINT_MASTER_KEY' : path.join(sources.dataDir, 'master.key');
}

/** The configured master keys, or undefined when none is configured yet (one would be minted). */
export function configuredMasterKeys(sources: KeyMaterialSources): MasterKey[] | undefined {
  if (sources.masterKey !== undefined) return parseMasterKeys(sources.masterKey);
  const file = path.join(sources.dataDir, 'master.key');
  return existsSync(file) ? parseMasterKeys(readFileSync(file, 'utf8')) : undefined;
}

function newMasterKeyLine(): string {
  return `k${Date.now().toString(36)}:${randomBytes(32).toString('base64')}`;
}

function readOrCreate(dataDir: string, name: string, create: () => string): string {
  const file = path.join(dataDir, name);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const value = create();
  try {
    writeFileSync(file, `${value}\n`, { mode: 0o600, flag: 'wx' });
    return value;
  } catch (error) {
    // Another process created it first; use theirs.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return readFileSync(file, 'utf8').trim();
    throw error;
  }
}
