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
