import { describe, expect, it } from 'vitest';
import { type FleetJob, type FleetPrior, uninformedPrior } from '../../optimizer/fleet-prior.js';
import { RuntimeAnalog } from '../../optimizer/runtime-analog.js';
import { shippedSourceBuilds } from '../../optimizer/shipped-fleet/shipped-fleet.js';
import { FleetPriorSource, projectSource } from './fleet-prior-source.js';
import type { FleetProjectHistory, OrganizationFleet } from './recommender.js';

/** A prior whose analogs name the fleet jobs it was learned from (enough to see what was learned). */
function priorOf(jobs: readonly FleetJob[]): FleetPrior {
  const prior = uninformedPrior(['m5']);
  const analogs = jobs.map(
    (job) =>
      new RuntimeAnalog({
        space: prior.space,
        beta: prior.mean,
        measured: [],
        failureRates: [],
        residualVariance: prior.residualVariance,
        kernel: prior.kernel,
        noiseVariance: undefined,
        fallbackNoiseVariance: 0.01,
        priorWeight: 1 / jobs.length,
        source: job.source ?? 'unnamed',
        ...(job.label ? { label: job.label } : {}),
      }),
  );
  return { ...prior, analogs, jobs: jobs.length, shippedJobs: jobs.filter((job) => job.shipped).length };
}

const shipped: FleetJob[] = [{ candidates: [], observations: [], source: 'shipped:a', shipped: true }];

function fleetOf(counts: Map<string, number>): OrganizationFleet & { loads: number; loaded: string[][] } {
  const fleet = {
    loads: 0,
    loaded: [] as string[][],
    runCounts: async () => counts,
    async load(ids: readonly string[]): Promise<FleetProjectHistory[]> {
      fleet.loads += 1;
      fleet.loaded.push([...ids]);
      return ids.map((projectId) => ({
        projectId,
        name: `Nightly ${projectId}`,
        settings: {} as never,
        workspace: null,
        runs: [],
      }));
    },
  };
  return fleet;
}

const jobOf = (): FleetJob => ({ candidates: [], observations: [] });

describe('FleetPriorSource', () => {
  it('learns once, relearns only when the organization fleet changes materially, and never teaches a project itself', async () => {
    const source = new FleetPriorSource({ learn: async (own) => priorOf([...shipped, ...own]) });
    const counts = new Map([
      ['prj_a', 6],
      ['prj_b', 8],
      ['prj_small', 2],
    ]);
    const fleet = fleetOf(counts);

    const forA = await source.priorFor('prj_a', fleet, jobOf);
    expect(source.learnings).toBe(1);
    expect(forA.analogs.map((analog) => analog.source)).toEqual(['shipped:a', projectSource('prj_b')]);
    expect(forA.jobs).toBe(3);
    // explanations name a project as a person knows it; its id stays the analog's source
    expect(forA.analogs.map((analog) => analog.label)).toEqual(['shipped:a', '“Nightly prj_b”']);
    // one eligible project's window at a time, never the whole fleet's at once
    expect(fleet.loaded).toEqual([['prj_a'], ['prj_b']]);

    // More runs, but less than the refresh growth: the cached prior, no loading.
    counts.set('prj_a', 7);
    await source.priorFor('prj_b', fleet, jobOf);
    expect(source.learnings).toBe(1);
    expect(fleet.loads).toBe(2);

    // A project becomes eligible: relearned with it, in the background — the prior in effect answers
    // meanwhile, and the relearned one once it is learned.
    counts.set('prj_small', 6);
    const meanwhile = await source.priorFor('prj_a', fleet, jobOf);
    expect(meanwhile.analogs.map((analog) => analog.source)).toEqual(['shipped:a', projectSource('prj_b')]);
    await source.settled();
    expect(source.learnings).toBe(2);
    const relearned = await source.priorFor('prj_a', fleet, jobOf);
    expect(relearned.analogs.map((analog) => analog.source)).toEqual([
      'shipped:a',
      projectSource('prj_b'),
      projectSource('prj_small'),
    ]);

    // Runs grew by a quarter: relearned.
    for (const [id, runs] of counts) counts.set(id, runs * 2);
    await source.priorFor('prj_a', fleet, jobOf);
    await source.settled();
    expect(source.learnings).toBe(3);
  });

  it('keeps answering with the prior in effect while one relearning is under way, and relearns after a failed one', async () => {
    const pending: { resolve: (prior: FleetPrior) => void; reject: (error: Error) => void; own: number }[] =
      [];
    const source = new FleetPriorSource({
      learn: (own) =>
        own.length === 0
          ? Promise.resolve(priorOf([...shipped, ...own]))
          : new Promise<FleetPrior>((resolve, reject) => pending.push({ resolve, reject, own: own.length })),
    });
    const counts = new Map([['prj_a', 2]]);
    const fleet = fleetOf(counts);
    const shippedOnly = await source.priorFor('prj_a', fleet, jobOf);
    counts.set('prj_a', 6);
    counts.set('prj_b', 6);
    // the relearning waits on its learner: every request meanwhile gets the shipped-only prior, and joins it
    expect(await source.priorFor('prj_a', fleet, jobOf)).toBe(shippedOnly);
    expect(await source.priorFor('prj_b', fleet, jobOf)).toBe(shippedOnly);
    expect(pending).toHaveLength(1);
    pending[0]?.reject(new Error('worker died'));
    await source.settled();
    expect(await source.priorFor('prj_a', fleet, jobOf)).toBe(shippedOnly);
    expect(pending).toHaveLength(2);
    pending[1]?.resolve(priorOf([...shipped, { candidates: [], observations: [], source: 'learned' }]));
    await source.settled();
    const learned = await source.priorFor('prj_a', fleet, jobOf);
    expect(learned.analogs.map((analog) => analog.source)).toEqual(['shipped:a', 'learned']);
    expect(source.learnings).toBe(3);
  });

  it('relearns only when refreshed once told to: a request keeps the prior in effect however far the fleet moved', async () => {
    const source = new FleetPriorSource({ learn: async (own) => priorOf([...shipped, ...own]) });
    source.relearnOnlyOnRefresh();
    const counts = new Map([['prj_a', 6]]);
    const fleet = fleetOf(counts);
    const shippedOnly = await source.priorFor('prj_b', fleet, jobOf);
    expect(shippedOnly.analogs.map((analog) => analog.source)).toEqual(['shipped:a']);
    await source.settled();
    expect(source.learnings).toBe(1);

    await source.refresh();
    expect(source.learnings).toBe(2);
    const refreshed = await source.priorFor('prj_b', fleet, jobOf);
    expect(refreshed.analogs.map((analog) => analog.source)).toEqual(['shipped:a', projectSource('prj_a')]);

    // the fleet moves: requests keep the refreshed prior, and a refresh relearns once, only while it moved
    counts.set('prj_b', 6);
    expect(await source.priorFor('prj_b', fleet, jobOf)).toBe(refreshed);
    await source.settled();
    expect(source.learnings).toBe(2);
    await source.refresh();
    await source.refresh();
    expect(source.learnings).toBe(3);
    const moved = await source.priorFor('prj_a', fleet, jobOf);
    expect(moved.analogs.map((analog) => analog.source)).toEqual(['shipped:a', projectSource('prj_b')]);

    // another organization's store: the shipped-only prior again, learned on request, never relearned
    await source.forgetOrganization();
    expect(await source.priorFor('prj_c', fleetOf(new Map([['prj_c', 2]])), jobOf)).toBe(shippedOnly);
    await source.refresh();
    expect(source.learnings).toBe(3);
    await source.priorFor('prj_c', fleetOf(new Map([['prj_c', 6]])), jobOf);
    await source.settled();
    expect(source.learnings).toBe(4);
  });

  it('learns the shipped-only prior once when no project has enough runs, and learns again after a failure', async () => {
    let fail = true;
    const source = new FleetPriorSource({
      learn: async (jobs) => {
        if (fail) throw new Error('worker died');
        return priorOf([...shipped, ...jobs]);
      },
    });
    await expect(source.priorFor('prj_a', undefined, jobOf)).rejects.toThrow('worker died');
    fail = false;
    const prior = await source.priorFor('prj_a', fleetOf(new Map([['prj_a', 3]])), jobOf);
    await source.priorFor('prj_b', undefined, jobOf);
    expect(prior.shippedJobs).toBe(1);
    expect(source.learnings).toBe(2);
  });

  it('hands its learner only the organization’s own jobs: the shipped fleet is the learner’s, never rebuilt here', async () => {
    const learned: (readonly FleetJob[])[] = [];
    const source = new FleetPriorSource({
      learn: async (own) => {
        learned.push(own);
        return priorOf(own);
      },
    });
    const builds = shippedSourceBuilds();
    await source.priorFor('prj_a', undefined, jobOf);
    await source.priorFor('prj_a', fleetOf(new Map([['prj_a', 6]])), jobOf);
    await source.settled();
    await source.priorFor('prj_a', fleetOf(new Map([['prj_a', 60]])), jobOf);
    await source.settled();
    expect(learned.map((jobs) => jobs.map((job) => job.source))).toEqual([
      [],
      [projectSource('prj_a')],
      [projectSource('prj_a')],
    ]);
    expect(shippedSourceBuilds()).toBe(builds);
  });

  it('learns the same prior from the same evidence, whatever ids the projects have and the order they are listed in', async () => {
    const candidate = (id: string) => ({ id, nodes: 4, priceUsdPerNodeHour: 1 }) as never;
    // two projects' evidence: which configurations ran, how long and at what cost
    const evidence: Record<'nightly' | 'hourly', FleetJob> = {
      nightly: {
        candidates: [candidate('m5.xlarge×4')],
        observations: [{ candidateId: 'm5.xlarge×4', runtimeS: 600, costUsd: 2, completed: true }],
      },
      hourly: {
        candidates: [candidate('r5.xlarge×4')],
        observations: [{ candidateId: 'r5.xlarge×4', runtimeS: 90, costUsd: 0.4, completed: true }],
      },
    };
    /** The labels of the jobs the learner was handed, for one organization whose ids name the projects. */
    async function learnedOrder(ids: Record<string, 'nightly' | 'hourly'>): Promise<string[]> {
      let handed: readonly FleetJob[] = [];
      const source = new FleetPriorSource({
        learn: async (own) => {
          handed = own;
          return priorOf(own);
        },
      });
      const counts = new Map(Object.keys(ids).map((id) => [id, 6]));
      const fleet = fleetOf(counts);
      await source.priorFor('prj_new', fleet, (history) => evidence[ids[history.projectId] ?? 'nightly']);
      await source.settled();
      return handed.map((job) => String(job.observations[0]?.candidateId));
    }

    const one = await learnedOrder({ prj_1a: 'nightly', prj_9z: 'hourly' });
    const other = await learnedOrder({ prj_1a: 'hourly', prj_9z: 'nightly' });
    expect(one).toHaveLength(2);
    expect(other).toEqual(one);
  });
});
