import { hardwareOfName } from '../configuration-name.js';
import type { FleetJob } from '../fleet-prior.js';
import type { Candidate, Observation } from '../types.js';
import { shippedSources } from './shipped-fleet-data.js';
import type { ShippedConfiguration, ShippedSource } from './shipped-fleet-format.js';

/**
 * The fleet Setpoint ships so a fresh install is not blind: public and generated configuration sweeps,
 * one job per workload (provenance and licences: docs/optimizer.md, "The shipped prior"). The service
 * learns its prior from these jobs together with the organization's own, which outnumber them as the
 * organization's fleet grows.
 */
export const shippedFleetSources: readonly string[] = shippedSources.map((source) => source.name);

/**
 * Shipped jobs, named `<source>:<workload>`, optionally without some sources (for held-out evaluation).
 * Each source's jobs are built once per process (the data is shipped, so nothing invalidates them): the
 * service asks on every learning of its prior, and building them is tens of thousands of observations.
 * The jobs are shared between callers, so they are frozen.
 */
export function shippedFleet(options: { exclude?: readonly string[] } = {}): FleetJob[] {
  const excluded = new Set(options.exclude ?? []);
  return shippedSources.filter((source) => !excluded.has(source.name)).flatMap(builtJobsOf);
}

const builtJobs = new Map<string, readonly FleetJob[]>();
let sourceBuilds = 0;

/** How many times a shipped source's jobs were built in this process (for tests of the memo). */
export function shippedSourceBuilds(): number {
  return sourceBuilds;
}

function builtJobsOf(source: ShippedSource): readonly FleetJob[] {
  let jobs = builtJobs.get(source.name);
  if (!jobs) {
    sourceBuilds += 1;
    jobs = Object.freeze(jobsOf(source).map(frozenJob));
    builtJobs.set(source.name, jobs);
  }
  return jobs;
}

function frozenJob(job: FleetJob): FleetJob {
  Object.freeze(job.candidates);
  Object.freeze(job.observations);
  return Object.freeze(job);
}

function jobsOf(source: ShippedSource): FleetJob[] {
  const types = source.instanceTypes;
  return source.jobs.map((job) => {
    const candidates: Candidate[] = [];
    const observations: Observation[] = [];
    for (const configuration of job.configurations) {
      const [typeIndex, nodes] = configuration;
      const [name, vcpusPerNode, memoryGibPerNode, priceUsdPerNodeHour] = types[typeIndex] as [
        string,
        number,
        number,
        number,
      ];
      const candidate = {
        id: `${nodes}x${name}`,
        ...hardwareOfName(name),
        nodes,
        vcpusPerNode,
        memoryGibPerNode,
        priceUsdPerNodeHour,
      };
      candidates.push(candidate);
      observations.push(...observationsOf(candidate, configuration));
    }
    return {
      candidates,
      observations,
      source: `${source.name}:${job.workload}`,
      label: `shipped ${source.name} job “${job.workload}”`,
      shipped: true,
    };
  });
}

/**
 * Runs that reproduce a configuration's shipped statistics exactly: the completed runs' ln(runtime)
 * placed symmetrically around their mean with the recorded scatter, then the failed runs.
 */
function observationsOf(candidate: Candidate, configuration: ShippedConfiguration): Observation[] {
  const [, , runs, failures, meanLog, scatter] = configuration;
  const completed = runs - failures;
  const paired = completed - (completed % 2);
  const offset = paired > 0 ? Math.sqrt(scatter / paired) : 0;
  const logs = Array.from({ length: completed }, (_, i) =>
    i >= paired ? meanLog : meanLog + (i % 2 === 0 ? offset : -offset),
  );
  const rate = (candidate.nodes * candidate.priceUsdPerNodeHour) / 3600;
  return [
    ...logs.map((log) => ({
      candidateId: candidate.id,
      runtimeS: Math.exp(log),
      costUsd: rate * Math.exp(log),
      completed: true,
    })),
    ...Array.from({ length: failures }, () => ({
      candidateId: candidate.id,
      runtimeS: Math.exp(meanLog),
      costUsd: 0,
      completed: false,
    })),
  ];
}
