import { type Workload, type WorkloadInput, workloadSchema } from './schema.js';

const gb = 1e9;
const mb = 1e6;

/**
 * The Job Bank's hand-specified workloads. Sizes are at data scale 1; each one stresses a different
 * resource so that the right cluster differs from job to job.
 */
const definitions: WorkloadInput[] = [
  {
    name: 'join-heavy-etl',
    description: 'Two scans joined on a high-cardinality key, then aggregated and written out.',
    photonSpeedup: 2,
    jobs: [
      {
        name: 'join orders with customers',
        stages: [
          {
            id: 0,
            name: 'scan orders',
            tasks: 320,
            cpuSecondsPerTask: 3,
            inputBytes: 64 * gb,
            shuffleWriteBytes: 24 * gb,
            photonEligible: 0.6,
            tasksScaleWithData: true,
          },
          {
            id: 1,
            name: 'scan customers',
            tasks: 80,
            cpuSecondsPerTask: 2,
            inputBytes: 12 * gb,
            shuffleWriteBytes: 6 * gb,
            photonEligible: 0.6,
            tasksScaleWithData: true,
          },
          {
            id: 2,
            name: 'sort-merge join',
            parents: [0, 1],
            tasks: 200,
            cpuSecondsPerTask: 9,
            shuffleReadBytes: 30 * gb,
            shuffleWriteBytes: 8 * gb,
            memoryPerTaskBytes: 700 * mb,
            unspillableFraction: 0.1,
            photonEligible: 0.7,
          },
          {
            id: 3,
            name: 'aggregate and write',
            parents: [2],
            tasks: 200,
            cpuSecondsPerTask: 3,
            shuffleReadBytes: 8 * gb,
            outputBytes: 4 * gb,
            memoryPerTaskBytes: 200 * mb,
            photonEligible: 0.7,
          },
        ],
      },
    ],
  },
  {
    name: 'daily-aggregation',
    description: 'A wide scan with a partial and a final aggregation; a code change later makes it heavier.',
    photonSpeedup: 2.5,
    codeChange: { fromRunIndex: 30, cpuScale: 1.5, memoryScale: 1.3 },
    jobs: [
      {
        name: 'aggregate events by day',
        stages: [
          {
            id: 0,
            name: 'scan and partial aggregate',
            tasks: 240,
            cpuSecondsPerTask: 5,
            inputBytes: 48 * gb,
            shuffleWriteBytes: 3 * gb,
            photonEligible: 0.8,
            tasksScaleWithData: true,
          },
          {
            id: 1,
            name: 'final aggregate',
            parents: [0],
            tasks: 200,
            cpuSecondsPerTask: 1.5,
            shuffleReadBytes: 3 * gb,
            outputBytes: 0.5 * gb,
            memoryPerTaskBytes: 150 * mb,
            photonEligible: 0.8,
          },
        ],
      },
    ],
  },
  {
    name: 'skewed-join',
    description: 'A join where a few keys hold most rows: one straggler task decides the stage time.',
    photonSpeedup: 1.6,
    jobs: [
      {
        name: 'join clicks with sessions',
        stages: [
          {
            id: 0,
            name: 'scan clicks',
            tasks: 160,
            cpuSecondsPerTask: 2,
            inputBytes: 30 * gb,
            shuffleWriteBytes: 12 * gb,
            tasksScaleWithData: true,
          },
          {
            id: 1,
            name: 'skewed join',
            parents: [0],
            tasks: 200,
            cpuSecondsPerTask: 4,
            skew: 1.3,
            shuffleReadBytes: 12 * gb,
            memoryPerTaskBytes: 300 * mb,
            unspillableFraction: 0.05,
            outputBytes: 2 * gb,
          },
        ],
      },
    ],
  },
  {
    name: 'spill-heavy-sort',
    description:
      'A global sort with large per-task working sets: spills on small memory, fails below a threshold.',
    photonSpeedup: 1.3,
    jobs: [
      {
        name: 'sort transactions',
        stages: [
          {
            id: 0,
            name: 'scan transactions',
            tasks: 200,
            cpuSecondsPerTask: 2,
            inputBytes: 40 * gb,
            shuffleWriteBytes: 40 * gb,
            photonEligible: 0.3,
            tasksScaleWithData: true,
          },
          {
            id: 1,
            name: 'sort partitions',
            parents: [0],
            tasks: 200,
            cpuSecondsPerTask: 6,
            skew: 0.2,
            shuffleReadBytes: 40 * gb,
            memoryPerTaskBytes: 3 * gb,
            unspillableFraction: 0.25,
            outputBytes: 20 * gb,
            photonEligible: 0.3,
          },
        ],
      },
    ],
  },
  {
    name: 'cpu-bound-ml',
    description: 'Iterative feature scoring in Python UDFs: pure CPU, no Photon benefit.',
    photonSpeedup: 1,
    jobs: Array.from({ length: 4 }, (_, iteration) => ({
      name: `training iteration ${iteration + 1}`,
      stages: [
        {
          id: 0,
          name: 'score features (python udf)',
          tasks: 128,
          cpuSecondsPerTask: 25,
          skew: 0.15,
          inputBytes: 2 * gb,
          shuffleWriteBytes: 0.2 * gb,
          photonEligible: 0,
        },
        {
          id: 1,
          name: 'reduce gradients',
          parents: [0],
          tasks: 16,
          cpuSecondsPerTask: 2,
          shuffleReadBytes: 0.2 * gb,
          photonEligible: 0,
        },
      ],
    })),
  },
  {
    name: 'many-small-jobs',
    description: 'Dozens of small Spark jobs driven from a loop: driver-bound, more workers barely help.',
    photonSpeedup: 1.2,
    driverGapSeconds: 4,
    jobs: Array.from({ length: 40 }, (_, index) => ({
      name: `refresh partition ${index}`,
      stages: [
        {
          id: 0,
          name: 'read partition',
          tasks: 8,
          cpuSecondsPerTask: 0.8,
          inputBytes: 0.1 * gb,
          shuffleWriteBytes: 0.01 * gb,
        },
        {
          id: 1,
          name: 'merge partition',
          parents: [0],
          tasks: 4,
          cpuSecondsPerTask: 0.5,
          shuffleReadBytes: 0.01 * gb,
          outputBytes: 0.05 * gb,
        },
      ],
    })),
  },
  {
    name: 'io-bound-scan',
    description: 'A selective filter over a large table: time goes to reading cloud storage.',
    photonSpeedup: 1.3,
    jobs: [
      {
        name: 'filter raw logs',
        stages: [
          {
            id: 0,
            name: 'scan and filter',
            tasks: 1200,
            cpuSecondsPerTask: 0.6,
            inputBytes: 360 * gb,
            shuffleWriteBytes: 1 * gb,
            photonEligible: 0.5,
            tasksScaleWithData: true,
          },
          {
            id: 1,
            name: 'write matches',
            parents: [0],
            tasks: 50,
            cpuSecondsPerTask: 1,
            shuffleReadBytes: 1 * gb,
            outputBytes: 1 * gb,
          },
        ],
      },
    ],
  },
  {
    name: 'photon-friendly-sql',
    description:
      'Columnar aggregations and hash joins that Photon vectorizes: about three times faster with Photon.',
    photonSpeedup: 3.2,
    jobs: [
      {
        name: 'star-schema query',
        stages: [
          {
            id: 0,
            name: 'scan fact table',
            tasks: 256,
            cpuSecondsPerTask: 24,
            inputBytes: 30 * gb,
            shuffleWriteBytes: 4 * gb,
            photonEligible: 0.95,
            tasksScaleWithData: true,
          },
          {
            id: 1,
            name: 'broadcast hash join and aggregate',
            parents: [0],
            tasks: 200,
            cpuSecondsPerTask: 30,
            shuffleReadBytes: 4 * gb,
            memoryPerTaskBytes: 250 * mb,
            photonEligible: 0.95,
          },
          {
            id: 2,
            name: 'final aggregate',
            parents: [1],
            tasks: 50,
            cpuSecondsPerTask: 2,
            shuffleReadBytes: 0.2 * gb,
            photonEligible: 0.95,
          },
        ],
      },
    ],
  },
  {
    name: 'growing-events',
    description: 'An append-only event table whose daily volume grows 5% a week.',
    photonSpeedup: 2,
    growthPerWeek: 0.05,
    jobs: [
      {
        name: 'sessionize events',
        stages: [
          {
            id: 0,
            name: 'scan events',
            tasks: 200,
            cpuSecondsPerTask: 3,
            inputBytes: 40 * gb,
            shuffleWriteBytes: 10 * gb,
            photonEligible: 0.6,
            tasksScaleWithData: true,
          },
          {
            id: 1,
            name: 'window by session',
            parents: [0],
            tasks: 200,
            cpuSecondsPerTask: 5,
            shuffleReadBytes: 10 * gb,
            memoryPerTaskBytes: 500 * mb,
            unspillableFraction: 0.1,
            outputBytes: 5 * gb,
            photonEligible: 0.5,
          },
        ],
      },
    ],
  },
  {
    name: 'pipeline-ingest',
    description: 'First task of the two-cluster pipeline: parse and deduplicate raw files.',
    photonSpeedup: 1.5,
    jobs: [
      {
        name: 'ingest raw files',
        stages: [
          {
            id: 0,
            name: 'parse json',
            tasks: 160,
            cpuSecondsPerTask: 4,
            inputBytes: 24 * gb,
            shuffleWriteBytes: 8 * gb,
            photonEligible: 0.3,
            tasksScaleWithData: true,
          },
          {
            id: 1,
            name: 'deduplicate',
            parents: [0],
            tasks: 200,
            cpuSecondsPerTask: 2,
            shuffleReadBytes: 8 * gb,
            memoryPerTaskBytes: 400 * mb,
            outputBytes: 6 * gb,
          },
        ],
      },
    ],
  },
  {
    name: 'pipeline-transform',
    description: 'Second task of the two-cluster pipeline: joins and aggregates on a larger cluster.',
    photonSpeedup: 2.2,
    jobs: [
      {
        name: 'build marts',
        stages: [
          {
            id: 0,
            name: 'scan silver',
            tasks: 200,
            cpuSecondsPerTask: 3,
            inputBytes: 30 * gb,
            shuffleWriteBytes: 15 * gb,
            photonEligible: 0.7,
            tasksScaleWithData: true,
          },
          {
            id: 1,
            name: 'join dimensions',
            parents: [0],
            tasks: 200,
            cpuSecondsPerTask: 8,
            shuffleReadBytes: 15 * gb,
            shuffleWriteBytes: 3 * gb,
            memoryPerTaskBytes: 800 * mb,
            photonEligible: 0.8,
          },
          {
            id: 2,
            name: 'aggregate marts',
            parents: [1],
            tasks: 100,
            cpuSecondsPerTask: 2,
            shuffleReadBytes: 3 * gb,
            outputBytes: 1 * gb,
            photonEligible: 0.8,
          },
        ],
      },
    ],
  },
  {
    name: 'nightly-rollup',
    description:
      'A long nightly roll-up of the day into reporting tables, mostly Python UDF time: start-up is a small share of it (a serverless job in the Job Bank).',
    jobs: [
      {
        name: 'roll up the day',
        stages: [
          {
            id: 0,
            name: 'scan and enrich (python udf)',
            tasks: 640,
            cpuSecondsPerTask: 2270,
            inputBytes: 120 * gb,
            shuffleWriteBytes: 6 * gb,
            photonEligible: 0,
            tasksScaleWithData: true,
          },
          {
            id: 1,
            name: 'write reporting tables',
            parents: [0],
            tasks: 200,
            cpuSecondsPerTask: 6,
            shuffleReadBytes: 6 * gb,
            outputBytes: 2 * gb,
            photonEligible: 0.5,
          },
        ],
      },
    ],
  },
  {
    name: 'feature-backfill',
    description:
      'A mid-sized feature backfill, mostly Python UDF time: a few minutes of start-up are a fifth of it (a serverless job in the Job Bank).',
    jobs: [
      {
        name: 'backfill features',
        stages: [
          {
            id: 0,
            name: 'compute features (python udf)',
            tasks: 640,
            cpuSecondsPerTask: 275,
            inputBytes: 30 * gb,
            shuffleWriteBytes: 2 * gb,
            photonEligible: 0,
            tasksScaleWithData: true,
          },
          {
            id: 1,
            name: 'write feature table',
            parents: [0],
            tasks: 100,
            cpuSecondsPerTask: 4,
            shuffleReadBytes: 2 * gb,
            outputBytes: 1 * gb,
            photonEligible: 0.5,
          },
        ],
      },
    ],
  },
];

export const shippedWorkloads: readonly Workload[] = definitions.map((definition) =>
  workloadSchema.parse(definition),
);

export function findShippedWorkload(name: string): Workload | undefined {
  return shippedWorkloads.find((workload) => workload.name === name);
}
