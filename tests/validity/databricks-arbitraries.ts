import fc from 'fast-check';

/**
 * Random Databricks clusters for the validity property tests: mostly well-formed, with every field Setpoint writes
 * drawn from valid and invalid values alike, so both verdicts come up often.
 */

const maybe = <T>(arbitrary: fc.Arbitrary<T>) => fc.noBias(fc.option(arbitrary, { nil: undefined, freq: 2 }));
/** Drops undefined fields: a request leaves a field out, it does not send `undefined`. */
const compact = <T extends Record<string, unknown>>(record: T): T =>
  Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)) as T;

export const awsNodeTypes = [
  'm5d.xlarge',
  'm5d.2xlarge',
  'r5d.xlarge',
  'c5d.xlarge',
  'm5.xlarge',
  'i3.xlarge',
  'm6gd.xlarge',
];
const foreignNodeTypes = ['Standard_F8s_v2', 'x9.huge'];

export const databricksCluster: fc.Arbitrary<Record<string, unknown>> = fc
  .record({
    spark_version: fc.constantFrom(
      '15.4.x-scala2.12',
      '14.3.x-scala2.12',
      '15.4.x-photon-scala2.12',
      '8.4.x-scala2.12',
    ),
    node_type_id: fc.constantFrom(...awsNodeTypes, ...awsNodeTypes, ...foreignNodeTypes),
    driver_node_type_id: maybe(fc.constantFrom(...awsNodeTypes, ...foreignNodeTypes)),
    size: fc.oneof(
      fc.record({ num_workers: fc.integer({ min: -2, max: 16 }) }),
      fc.record({
        autoscale: fc.record({
          min_workers: fc.integer({ min: -1, max: 6 }),
          max_workers: fc.integer({ min: 1, max: 10 }),
        }),
      }),
      fc.record({
        num_workers: fc.integer({ min: 0, max: 8 }),
        autoscale: fc.record({
          min_workers: fc.integer({ min: 1, max: 3 }),
          max_workers: fc.integer({ min: 4, max: 8 }),
        }),
      }),
    ),
    runtime_engine: maybe(fc.constantFrom('STANDARD', 'PHOTON', 'PHOTON', 'TURBO')),
    aws_attributes: maybe(
      fc
        .record({
          availability: maybe(fc.constantFrom('SPOT', 'ON_DEMAND', 'SPOT_WITH_FALLBACK', 'SPOT_AZURE')),
          first_on_demand: maybe(fc.integer({ min: -1, max: 4 })),
          spot_bid_price_percent: maybe(fc.constantFrom(50, 100, 10_000, 10_001)),
          ebs_volume_type: maybe(fc.constantFrom('GENERAL_PURPOSE_SSD', 'THROUGHPUT_OPTIMIZED_HDD', 'GP3')),
          ebs_volume_count: maybe(fc.integer({ min: 0, max: 11 })),
          ebs_volume_size: maybe(fc.constantFrom(32, 100, 250, 500, 1000, 4096, 5000)),
          ebs_volume_iops: maybe(fc.constantFrom(2000, 3000, 6000, 16_000, 20_000)),
          ebs_volume_throughput: maybe(fc.constantFrom(100, 125, 500, 1000, 1200)),
        })
        .map(compact),
    ),
    custom_tags: maybe(
      fc
        .integer({ min: 0, max: 47 })
        .map((count) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`tag${i}`, 'v']))),
    ),
  })
  .map(({ size, ...rest }) => compact({ ...rest, ...size }));
