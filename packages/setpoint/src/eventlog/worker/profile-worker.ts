/**
 * The worker-thread side of profileEventLogInWorker: reads one event log and posts its RunProfile
 * (or its error) back. Nothing else runs here, so a hostile log can only burn this thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { analyzeEventLog } from '../analyze-event-log.js';
import { type ProfileJob, serializeWorkerError, type WorkerMessage } from './worker-protocol.js';

const job = workerData as ProfileJob;
const post = (message: WorkerMessage) => parentPort!.postMessage(message);

try {
  const profile = await analyzeEventLog(job.path, {
    ...job.options,
    ...(job.reportProgress ? { onProgress: (progress) => post({ type: 'progress', progress }) } : {}),
  });
  post({ type: 'done', profile });
} catch (error) {
  post({ type: 'failed', error: serializeWorkerError(error) });
}
