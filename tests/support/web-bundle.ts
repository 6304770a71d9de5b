import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** The dashboard bundle the server serves (`packages/setpoint/src/server/plugins/web-app.ts`). */
export const webBundleIndex = 'web/dist/index.html';

/** What the bundle is built from: the dashboard and the workspace packages Vite bundles from their sources. */
const bundleSources = [
  'web/index.html',
  'web/vite.config.ts',
  'web/src',
  'web/public',
  'packages/api-contract/src',
  'packages/insights/src',
  'packages/foundation/src',
];

function newestChangeMs(entry: string): number {
  const stats = statSync(entry);
  if (!stats.isDirectory()) return stats.mtimeMs;
  let newest = stats.mtimeMs;
  for (const child of readdirSync(entry)) newest = Math.max(newest, newestChangeMs(path.join(entry, child)));
  return newest;
}

/**
 * The source files changed since `web/dist` was built, or `[]` when it is current. The browser tests drive
 * the built bundle: a stale one silently shows yesterday's pages (a new column missing, its CSV fields
 * with it), so the test setup rebuilds it first.
 */
export function staleWebBundleSources(root = '.'): string[] {
  const index = path.join(root, webBundleIndex);
  if (!existsSync(index)) return [webBundleIndex];
  const builtMs = statSync(index).mtimeMs;
  return bundleSources.filter((source) => {
    const entry = path.join(root, source);
    return existsSync(entry) && newestChangeMs(entry) > builtMs;
  });
}
