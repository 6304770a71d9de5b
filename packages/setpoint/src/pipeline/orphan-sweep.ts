import { readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { PipelineDependencies } from './pipeline-context.js';

export interface SweepResult {
  bundles: number;
  scratch: number;
}

/**
 * Removes what a crash or a failed delete left behind: event-log bundles no run points to, and
 * scratch directories (uploads, downloads) no request or job is using. Only entries older than
 * `minAgeMs` are touched, so an upload whose files are stored before its run row is never swept.
 */
export function orphanSweep(deps: Pick<PipelineDependencies, 'runs' | 'blobs' | 'scratchDir' | 'logger'>) {
  return async function sweepOrphans(minAgeMs: number, now = Date.now()): Promise<SweepResult> {
    const old = (await deps.blobs.listBundles('runs/')).filter((entry) => now - entry.modifiedAt >= minAgeMs);
    const referenced = await deps.runs.referencedBlobKeys(old.map((entry) => entry.bundle));
    let bundles = 0;
    for (const { bundle } of old) {
      if (referenced.has(bundle)) continue;
      await deps.blobs.deleteBundle(bundle);
      bundles += 1;
    }
    let scratch = 0;
    for (const name of await readdir(deps.scratchDir).catch(() => [] as string[])) {
      const entry = path.join(deps.scratchDir, name);
      const info = await stat(entry).catch(() => undefined);
      if (!info || now - info.mtimeMs < minAgeMs) continue;
      await rm(entry, { recursive: true, force: true });
      scratch += 1;
    }
    if (bundles + scratch > 0)
      deps.logger.info({ bundles, scratch }, 'removed orphaned event logs and scratch files');
    return { bundles, scratch };
  };
}
