import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { resourceMissing } from './api-errors.js';
import type { EmulatorContext } from './emulator-context.js';
import { faultRuleSchema } from './faults.js';
import { parseWith } from './route-kit.js';

const clockBodySchema = z.object({
  advance_ms: z.number().int().nonnegative().optional(),
  speed: z.number().nonnegative().optional(),
});

const faultBodySchema = z.union([faultRuleSchema, z.array(faultRuleSchema)]);

/**
 * `/emulator/admin/*`: controls that are not part of the Databricks API — the simulated clock, fault
 * rules, webhook delivery records, refused requests and the ground truth of each simulated run (for the Job Bank).
 */
export function registerAdminRoutes(app: FastifyInstance, context: EmulatorContext): void {
  const { clock, faults, state, engine, webhooks } = context;

  app.get('/emulator/admin/status', async () => {
    engine.catchUp();
    return {
      now: clock.now(),
      clock_speed: clock.clockSpeed,
      seed: context.seed,
      jobs: state.jobs.size,
      runs: state.runs.size,
      clusters: state.clusters.size,
      pending_actions: engine.pendingActions,
      workloads: context.workloads.list().map((workload) => workload.name),
    };
  });

  app.post('/emulator/admin/clock', async (request) => {
    const body = parseWith(clockBodySchema, request.body);
    if (body.speed !== undefined) clock.setSpeed(body.speed);
    if (body.advance_ms !== undefined) clock.advance(body.advance_ms);
    engine.catchUp();
    await webhooks.settle();
    return { now: clock.now(), clock_speed: clock.clockSpeed };
  });

  app.get('/emulator/admin/faults', async () => ({ faults: faults.list() }));

  app.post('/emulator/admin/faults', async (request) => {
    const body = parseWith(faultBodySchema, request.body);
    const added = (Array.isArray(body) ? body : [body]).map((rule) => faults.add(rule));
    return { faults: added };
  });

  app.delete('/emulator/admin/faults', async () => {
    faults.clear();
    return {};
  });

  app.delete('/emulator/admin/faults/:id', async (request) => {
    const id = Number((request.params as { id: string }).id);
    if (!faults.remove(id)) throw resourceMissing(`Fault rule ${id} does not exist.`);
    return {};
  });

  app.get('/emulator/admin/webhooks', async () => {
    engine.catchUp();
    await webhooks.settle();
    return { deliveries: state.webhookDeliveries };
  });

  /** Requests refused for an invalid cluster: what the benches count (a writer that is right gets none). */
  app.get('/emulator/admin/refusals', async () => ({ refusals: state.refusals }));

  app.get('/emulator/admin/runs/:runId', async (request) => {
    const runId = Number((request.params as { runId: string }).runId);
    const run = state.runs.get(runId);
    if (!run) throw resourceMissing(`Run ${runId} does not exist.`);
    const clusters = [...state.clusters.values()].filter((cluster) => cluster.runId === runId);
    return {
      run_id: runId,
      clusters: clusters.map((cluster) => ({
        cluster_id: cluster.clusterId,
        cluster_key: cluster.clusterKey,
        outcome: cluster.simulation.outcome,
        data_scale: cluster.simulation.dataScale,
        execution_ms: cluster.simulation.executionEndMs - cluster.simulation.executionStartMs,
        cluster_lifetime_ms: cluster.simulation.terminatedMs,
        cost: cluster.simulation.cost,
        workloads: cluster.simulation.segments,
      })),
      // tasks on serverless compute: the ground truth of their mode, start-up, scaling and DBUs
      serverless_tasks: run.tasks.flatMap((task) =>
        task.serverless
          ? [
              {
                task_key: task.taskKey,
                performance_target: task.serverless.performanceTarget,
                startup_ms: task.execStartMs - task.startMs,
                execution_ms: task.execEndMs - task.execStartMs,
                dbus: task.serverless.dbus,
                peak_workers: task.serverless.peakWorkers,
                node_seconds: task.serverless.nodeSeconds,
              },
            ]
          : [],
      ),
    };
  });
}
