/**
 * `node scripts/eventlog/run-bench-child.mjs <mode> <file>`: runs bench-child.ts with tsx registered
 * on this thread only. Under `node --import tsx` every worker thread the engine starts (decode-worker)
 * would load tsx as well, about 110 ms each on the reference machine, which the built CLI never pays.
 */
import { register } from 'tsx/esm/api';

register();
await import('./bench-child.ts');
