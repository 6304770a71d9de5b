import type { SetpointConfig } from '../config/schema.js';
import type { PlatformPlugin } from '../platform-api/platform.js';
import { openDatabase, type StoreConnection } from '../store/open-database.js';
import { registeredPlatforms } from './platforms.js';

/** The configured database with the core's migrations and every registered platform's. */
export function openStore(
  config: Pick<SetpointConfig, 'databaseUrl' | 'dataDir'>,
  platforms: readonly PlatformPlugin[] = registeredPlatforms(),
): Promise<StoreConnection> {
  return openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    migrations: platforms.map((platform) => (dialect) => platform.migrations(dialect)),
  });
}
