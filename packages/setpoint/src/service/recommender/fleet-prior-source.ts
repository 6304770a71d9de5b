import { createHash } from 'node:crypto';
import type { FleetJob, FleetPrior } from '../../optimizer/fleet-prior.js';
import { learnPriorOffThread } from './learn-prior-off-thread.js';
import type { FleetProjectHistory, OrganizationFleet } from './recommender.js';

/** A project's history as a fleet job, in the recommender's candidates; null when it cannot be read. */
export type FleetJobOf = (history: FleetProjectHistory) => FleetJob | null;

export interface FleetPriorSourceOptions {
  /** A project teaches the fleet once it has this many runs (the prior fits jobs with ≥ 6 configurations). */
  minRuns: number;
  /** Relearn when the eligible projects change or their runs grew by this share since the last learning. */
  refreshGrowth: number;
  /**
   * Learns and calibrates the prior from the shipped fleet followed by the organization's own jobs (by
   * default on a worker thread, which builds the shipped jobs itself: it takes seconds of CPU).
   */
  learn(own: readonly FleetJob[]): Promise<FleetPrior>;
}

export const defaultFleetPriorSourceOptions: FleetPriorSourceOptions = {
  minRuns: 6,
  refreshGrowth: 0.25,
  learn: (own) => learnPriorOffThread(own, { shipped: { exclude: [] } }),
};

/** The fleet source of an organization project's jobs: the analog the prior names it by. */
export const projectSource = (projectId: string) => `project:${projectId}`;

interface Learned {
  projects: Map<string, number>;
  prior: FleetPrior;
}

/**
 * The service's fleet prior: the fleet shipped with Setpoint blended with the organization's own projects
 * (each yields as the organization's fleet grows, see `shippedAnalogShare`), learned and calibrated once,
 * cached, and relearned only when the organization's fleet changed materially — a project became
 * eligible or left, or the eligible projects' runs grew by `refreshGrowth`. Learning is the expensive
 * part (tens of seconds of CPU, more on a busy machine): no request ever triggers it unless the fleet
 * moved, and a relearning runs in the background — recommendations keep the prior in effect (the
 * organization's last one, else the shipped-only one) until the new one is learned, so a backlog of runs
 * is not queued behind it. Only a process's first learning is waited for.
 */
export class FleetPriorSource {
  readonly #options: FleetPriorSourceOptions;
  #learned: Learned | null = null;
  #learning: Promise<Learned> | null = null;
  #shippedOnly: Promise<Learned> | null = null;
  #shippedOnlyLearned: Learned | null = null;
  #relearnOnRequest = true;
  /** The organization fleet and its reader of the last request: what `refresh` relearns from. */
  #lastAsked: { fleet: OrganizationFleet; jobOf: FleetJobOf } | null = null;

  constructor(options: Partial<FleetPriorSourceOptions> = {}) {
    this.#options = { ...defaultFleetPriorSourceOptions, ...options };
  }

  /**
   * From now on no request starts a relearning; only `refresh` does. The prior a recommendation sees then
   * changes only where the caller says (a closed loop, between its rounds), never with how fast the machine
   * learned it while concurrent runs were being digested.
   */
  relearnOnlyOnRefresh(): void {
    this.#relearnOnRequest = false;
  }

  /**
   * Forgets the organization (its learned prior, its fleet, `relearnOnlyOnRefresh`) once no learning is
   * under way; the shipped-only prior, pure data, is kept. For a process that serves one organization's
   * store after another (a bench's seeds), so no prior of the last one's projects answers for the next.
   */
  async forgetOrganization(): Promise<void> {
    await this.settled();
    this.#learned = null;
    this.#lastAsked = null;
    this.#relearnOnRequest = true;
  }

  /**
   * Relearns, and waits for it, when the organization fleet of the last request moved materially since the
   * last learning (a learning under way is waited for first).
   */
  async refresh(): Promise<void> {
    await this.settled();
    const asked = this.#lastAsked;
    if (!asked) return;
    const eligible = await this.#eligible(asked.fleet);
    if (eligible.size === 0 || (this.#learned && !this.#changedMaterially(this.#learned.projects, eligible)))
      return;
    await this.#relearn(asked.fleet, eligible, asked.jobOf);
  }

  /** The prior for one project: the organization's prior without the project's own surface as an analog. */
  async priorFor(
    projectId: string,
    fleet: OrganizationFleet | undefined,
    jobOf: FleetJobOf,
  ): Promise<FleetPrior> {
    const learned = await this.#current(fleet, jobOf);
    const own = projectSource(projectId);
    if (!learned.prior.analogs.some((analog) => analog.source === own)) return learned.prior;
    return { ...learned.prior, analogs: learned.prior.analogs.filter((analog) => analog.source !== own) };
  }

  /** How many times the prior was learned (for tests and the status page). */
  learnings = 0;

  /** Settles when no learning is under way (a failed one included): for tests and benchmarks. */
  async settled(): Promise<void> {
    await Promise.allSettled([this.#learning, this.#shippedOnly]);
  }

  async #eligible(fleet: OrganizationFleet | undefined): Promise<Map<string, number>> {
    const counts = fleet ? await fleet.runCounts() : new Map<string, number>();
    return new Map([...counts].filter(([, runs]) => runs >= this.#options.minRuns));
  }

  async #current(fleet: OrganizationFleet | undefined, jobOf: FleetJobOf): Promise<Learned> {
    if (fleet) this.#lastAsked = { fleet, jobOf };
    if (!this.#relearnOnRequest) return this.#learned ?? this.#shippedOnlyPrior();
    const eligible = await this.#eligible(fleet);
    if (eligible.size === 0) return this.#shippedOnlyPrior();
    if (this.#learned && !this.#changedMaterially(this.#learned.projects, eligible)) return this.#learned;
    const learning = this.#relearn(fleet as OrganizationFleet, eligible, jobOf);
    const inEffect = this.#learned ?? this.#shippedOnlyLearned;
    if (!inEffect) return learning;
    // its failure is forgotten (the next request that finds the fleet moved learns again)
    learning.catch(() => undefined);
    return inEffect;
  }

  /** The shipped fleet's prior alone, learned once: a failed learning is forgotten, so the retry learns again. */
  #shippedOnlyPrior(): Promise<Learned> {
    this.#shippedOnly ??= this.#learn([], new Map()).then(
      (learned) => {
        this.#shippedOnlyLearned = learned;
        return learned;
      },
      (error: unknown) => {
        this.#shippedOnly = null;
        throw error;
      },
    );
    return this.#shippedOnly;
  }

  /** The organization's prior learned anew, once at a time: a request that finds one under way joins it. */
  #relearn(fleet: OrganizationFleet, eligible: Map<string, number>, jobOf: FleetJobOf): Promise<Learned> {
    this.#learning ??= (async () => {
      const jobs: FleetJob[] = [];
      // one project's window at a time: only its fleet job (candidates, observations) is kept
      for (const projectId of eligible.keys()) {
        for (const history of await fleet.load([projectId])) {
          const job = jobOf(history);
          if (job)
            jobs.push({
              ...job,
              source: projectSource(history.projectId),
              label: `“${history.name}”`,
              shipped: false,
            });
        }
      }
      this.#learned = await this.#learn(inEvidenceOrder(jobs), eligible);
      return this.#learned;
    })().finally(() => {
      this.#learning = null;
    });
    return this.#learning;
  }

  async #learn(own: FleetJob[], projects: Map<string, number>): Promise<Learned> {
    this.learnings += 1;
    return { projects, prior: await this.#options.learn(own) };
  }

  #changedMaterially(before: ReadonlyMap<string, number>, now: ReadonlyMap<string, number>): boolean {
    if (before.size !== now.size || [...now.keys()].some((id) => !before.has(id))) return true;
    const total = (counts: ReadonlyMap<string, number>) => [...counts.values()].reduce((a, b) => a + b, 0);
    return total(now) >= total(before) * (1 + this.#options.refreshGrowth);
  }
}

/**
 * The organization's jobs in an order their evidence alone decides (what ran and how it went). Learning is
 * sensitive to order — the calibration deals its folds by position, and sums round by order — while the
 * projects are listed by their random ids: in that order, the same runs could teach two priors, and the
 * same evidence give two recommendations depending on ids. Jobs with the same evidence teach the same.
 */
function inEvidenceOrder(jobs: readonly FleetJob[]): FleetJob[] {
  const keyed = jobs.map((job) => ({
    job,
    key: createHash('sha256')
      .update(JSON.stringify([job.candidates, job.observations]))
      .digest('hex'),
  }));
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return keyed.map((entry) => entry.job);
}

/** One process learns the shipped-only prior once, whichever recommender asks first (it is pure data). */
let sharedSource: FleetPriorSource | null = null;
export function sharedFleetPriorSource(): FleetPriorSource {
  sharedSource ??= new FleetPriorSource();
  return sharedSource;
}
