import { describe, expect, it } from 'vitest';
import { shapeOfCluster } from '../cluster-shape/cluster-shape.js';
import { parseNewCluster } from '../cluster-shape/parse-configuration.js';
import { clusterFacts } from './cluster-facts.js';
import { clusterReportSchema } from './cluster-report.js';

/** A run's facts and its shape read one cluster: they must agree on its engine. */
function enginesOf(cluster: Record<string, unknown>) {
  const report = clusterReportSchema.parse({
    cluster: { node_type_id: 'm5d.xlarge', num_workers: 4, ...cluster },
  });
  const facts = clusterFacts(report, null);
  const shape = shapeOfCluster(parseNewCluster(report.cluster), 'aws', facts);
  return { facts: facts.photon, shape: shape.photon };
}

describe("a Databricks cluster's engine", () => {
  it('is Photon for the run facts and the shape alike on a legacy Photon runtime that names no engine', () => {
    expect(enginesOf({ spark_version: '13.3.x-photon-scala2.12' })).toEqual({ facts: true, shape: true });
  });

  it('is what the named engine says, whatever the runtime is called', () => {
    expect(enginesOf({ spark_version: '13.3.x-photon-scala2.12', runtime_engine: 'STANDARD' })).toEqual({
      facts: false,
      shape: false,
    });
    expect(enginesOf({ spark_version: '15.4.x-scala2.12', runtime_engine: 'PHOTON' })).toEqual({
      facts: true,
      shape: true,
    });
  });

  it('is left to the event log when the cluster says nothing', () => {
    expect(enginesOf({ spark_version: '15.4.x-scala2.12' })).toEqual({ facts: null, shape: false });
  });
});
