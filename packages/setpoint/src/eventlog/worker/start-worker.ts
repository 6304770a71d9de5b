import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * Starts the worker script `name` (a sibling of the calling module, e.g. `./profile-worker`).
 * Built, that is the `.js` file; run from TypeScript source (tsx, vitest), the worker registers tsx
 * first and then imports the `.ts` file.
 */
export function startWorker(name: string, callerUrl: string, options: WorkerOptions): Worker {
  if (!callerUrl.endsWith('.ts')) return new Worker(new URL(`${name}.js`, callerUrl), options);
  const tsx = import.meta.resolve('tsx/esm/api');
  const script = new URL(`${name}.ts`, callerUrl).href;
  const bootstrap = `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(script)}); });`;
  return new Worker(bootstrap, { ...options, eval: true });
}

/**
 * The one way a worker's outcome is settled: the first outcome wins, the time limit is cleared and the
 * worker terminated before it runs; past `timeoutMs`, `onTimeout` is that outcome.
 */
export function settleOnce(
  worker: Worker,
  timeoutMs: number,
  onTimeout: () => void,
): (outcome: () => void) => void {
  let settled = false;
  const settle = (outcome: () => void) => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    void worker.terminate();
    outcome();
  };
  const timer = setTimeout(() => settle(onTimeout), timeoutMs);
  return settle;
}
