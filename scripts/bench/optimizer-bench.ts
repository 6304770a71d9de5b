/**
 * `npm run bench:optimizer`: how long one recommendation takes for a project with 200 runs when the
 * prior holds 1,000 fleet jobs (goal ≤ 2 s p95), and how long learning that prior takes (done once and
 * cached, not per recommendation). The fleet is generated (the synthetic sweep model, 1,000 workloads
 * on 48 configurations each); the project's candidate space is the size the service builds for a
 * Databricks job (3 families × 4 sizes × 12 worker counts × 2 markets = 288 configurations).
 *
 *   npm run bench:optimizer            # BENCH_OPTIMIZER_JOBS, BENCH_OPTIMIZER_RUNS, BENCH_OPTIMIZER_ROUNDS
 *
 * BENCH_OPTIMIZER_CALIBRATE=0 fits the prior without calibrating it (hours of CPU for 1,000 jobs): the
 * calibration scales the model's spreads and changes neither the components nor the work of a
 * recommendation, so the recommendation figures stand; the prior's learning time is then not measured.
 */
import { cpus, totalmem } from 'node:os';
import { groupSweepRows } from '@setpoint/bench/sweep/sweep-dataset';
import { generateSyntheticSweep } from '@setpoint/bench/sweep/synthetic-sweep';
import { createRandom } from '@setpoint/foundation/random';
import { quantile } from '@setpoint/foundation/statistics';
import { learnCalibratedPrior } from 'setpoint/optimizer/calibrated-prior';
import { type FleetJob, learnFleetPrior } from 'setpoint/optimizer/fleet-prior';
import { JobOptimizer } from 'setpoint/optimizer/recommend';
import { type Candidate, type Observation, runCostUsd } from 'setpoint/optimizer/types';

const fleetJobs = Number(process.env.BENCH_OPTIMIZER_JOBS ?? 1000);
const projectRuns = Number(process.env.BENCH_OPTIMIZER_RUNS ?? 200);
const rounds = Number(process.env.BENCH_OPTIMIZER_ROUNDS ?? 20);
const calibrate = process.env.BENCH_OPTIMIZER_CALIBRATE !== '0';

const sweep = groupSweepRows(
  generateSyntheticSweep({ workloads: fleetJobs, repeats: 1, seed: 7, noise: 0.05, timeoutS: 7200 }),
);
const fleet: FleetJob[] = sweep.map((workload) => {
  // Every other node count: 48 configurations per job, like a team's history rather than a full sweep.
  const configs = workload.configs.filter((_, i) => i % 2 === 0);
  return {
    candidates: configs.map((config) => config.candidate),
    observations: configs.flatMap((config) =>
      config.runs.map((run) => ({
        candidateId: config.candidate.id,
        runtimeS: run.runtimeS,
        costUsd: runCostUsd(config.candidate, run.runtimeS),
        completed: run.completed,
      })),
    ),
  };
});

let started = performance.now();
const prior = calibrate ? learnCalibratedPrior(fleet) : learnFleetPrior(fleet);
const priorSeconds = (performance.now() - started) / 1000;

const families = [
  { name: 'm5', memoryPerCore: 4, pricePerCore: 0.048 },
  { name: 'c5', memoryPerCore: 2, pricePerCore: 0.0425 },
  { name: 'r5', memoryPerCore: 8, pricePerCore: 0.063 },
];
const sizes = [
  { name: 'xlarge', vcpus: 4 },
  { name: '2xlarge', vcpus: 8 },
  { name: '4xlarge', vcpus: 16 },
  { name: '8xlarge', vcpus: 32 },
];
const workers = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64];
const candidates: Candidate[] = families.flatMap((family) =>
  sizes.flatMap((size) =>
    workers.flatMap((nodes) =>
      [1, 0.35].map((priceShare) => ({
        id: `${nodes}x${family.name}.${size.name}${priceShare < 1 ? '|spot' : ''}`,
        instanceType: `${family.name}.${size.name}`,
        engine: 'standard' as const,
        storage: null,
        nodes,
        vcpusPerNode: size.vcpus,
        memoryGibPerNode: size.vcpus * family.memoryPerCore,
        priceUsdPerNodeHour: size.vcpus * family.pricePerCore * priceShare,
      })),
    ),
  ),
);

const times: number[] = [];
for (let round = 0; round < rounds; round++) {
  const random = createRandom(round + 1);
  // A project's history: 200 runs spread over the handful of configurations a loop visits.
  const visited = Array.from({ length: 8 }, () => candidates[random.int(candidates.length)] as Candidate);
  const observations: Observation[] = Array.from({ length: projectRuns }, (_, i) => {
    const candidate = visited[i % visited.length] as Candidate;
    const runtimeS =
      (60 + 40_000 / (candidate.nodes * candidate.vcpusPerNode)) * Math.exp(0.05 * random.normal());
    return { candidateId: candidate.id, runtimeS, costUsd: runCostUsd(candidate, runtimeS), completed: true };
  });
  started = performance.now();
  const optimizer = new JobOptimizer(prior, candidates);
  optimizer.recommend({
    candidates,
    observations,
    currentCandidateId: (observations.at(-1) as Observation).candidateId,
    slaSeconds: 1200,
  });
  times.push(performance.now() - started);
}

const result = {
  date: new Date().toISOString().slice(0, 10),
  machine: `${cpus().length} cores (${cpus()[0]?.model.trim() ?? 'unknown'}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
  fleetJobs: prior.jobs,
  candidates: candidates.length,
  projectRuns,
  rounds,
  priorLearningSeconds: calibrate ? Math.round(priorSeconds * 10) / 10 : null,
  fitSecondsWithoutCalibration: calibrate ? null : Math.round(priorSeconds * 10) / 10,
  recommendationMs: {
    p50: Math.round(quantile(times, 0.5)),
    p95: Math.round(quantile(times, 0.95)),
    max: Math.round(Math.max(...times)),
  },
};
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
