import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { isPermanentS3Error } from '@setpoint/foundation/s3';
import { type JobContext, PermanentJobError } from '../../queue/job-queue.js';
import { extractZip, isZipFile, safeFileName } from '../../service/runs/eventlog-bundle.js';
import { eventLogBundle } from '../../service/runs/run-records.js';
import { advanceRun, loadRun, type PipelineDependencies, permanentIfInvalid } from '../pipeline-context.js';

/**
 * Refused credentials or a missing bucket will not heal by retrying (the error names the object and
 * the permissions it needs): the run fails at once. A 5xx, a throttle or a transfer cut mid-body is
 * retried by the queue.
 */
function permanentIfUnreadable(error: unknown): never {
  if (isPermanentS3Error(error)) throw new PermanentJobError((error as Error).message, { cause: error });
  return permanentIfInvalid(error);
}

/** `run.ingest`: downloads an `eventlog_uri` (a zip is unpacked) into the blob store, then parses. */
export function ingestStep(deps: PipelineDependencies) {
  return async ({ runId }: { runId: string }, context: JobContext): Promise<void> => {
    const run = await loadRun(deps, runId);
    if (run.eventlogBlobKey === null) {
      if (!run.eventlogUri)
        throw new PermanentJobError(`run ${runId} has neither an event log nor an eventlog_uri`);
      await mkdir(deps.scratchDir, { recursive: true });
      const directory = await mkdtemp(path.join(deps.scratchDir, `ingest-${runId}-`));
      try {
        const name = safeFileName(new URL(run.eventlogUri).pathname, 'eventlog');
        const downloaded = path.join(directory, name);
        deps.logger.info(
          { runId, jobId: context.jobId, attempt: context.attempt },
          'event log download started',
        );
        const bytes = await deps.fetcher.fetchTo(run.eventlogUri, downloaded).catch(permanentIfUnreadable);
        const files = (await isZipFile(downloaded))
          ? await extractZip(downloaded, directory, deps.maxEventLogBytes, new Set([name]))
          : [{ name, path: downloaded, bytes }];
        const bundle = eventLogBundle(runId);
        for (const file of files) await deps.blobs.putFile(bundle, file.name, file.path);
        const changes = { eventlogBlobKey: bundle, eventlogBytes: bytes, pipelineState: 'PARSING' } as const;
        if (!(await advanceRun(deps, run, changes, 'run.ingest'))) return;
        deps.onIngestedBytes?.(bytes);
      } finally {
        await rm(directory, { recursive: true, force: true });
      }
    }
    await deps.queue.enqueue('run.parse', { runId }, { idempotencyKey: `run.parse:${runId}` });
  };
}
