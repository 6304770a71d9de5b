/**
 * The worker-thread side of `OptimizerPassWorkers`: fits the job's model on the fleet prior and assesses
 * every candidate (hundreds of mixture predictions and quantiles: up to seconds of CPU on a busy machine),
 * then posts the result back; the service's event loop keeps answering meanwhile. The worker stays up
 * between passes and keeps the last prior it was sent, so a pass on the same prior does not post it again.
 */
import { parentPort } from 'node:worker_threads';
import { serializeWorkerError } from '../../eventlog/worker/worker-protocol.js';
import { type FleetPrior, reviveFleetPrior } from '../../optimizer/fleet-prior.js';
import { RuntimeAnalog } from '../../optimizer/runtime-analog.js';
import { runOptimizerPass } from './optimizer-pass.js';
import type { PassReply, PassRequest } from './optimizer-pass-off-thread.js';

let held: { id: number; prior: FleetPrior } | undefined;

parentPort?.on('message', ({ priorId, prior, input }: PassRequest) => {
  let reply: PassReply;
  try {
    if (prior) held = { id: priorId, prior: reviveFleetPrior(prior) };
    if (held?.id !== priorId) throw new Error(`the recommendation worker does not hold prior ${priorId}`);
    const extraAnalogs = input.extraAnalogs.map((analog) => RuntimeAnalog.revive(analog));
    reply = { type: 'done', result: runOptimizerPass({ ...input, extraAnalogs, prior: held.prior }) };
  } catch (error) {
    reply = { type: 'failed', error: serializeWorkerError(error) };
  }
  parentPort?.postMessage(reply);
});
