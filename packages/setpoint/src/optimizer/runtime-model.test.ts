import { describe, expect, it } from 'vitest';
import { type FleetJob, learnFleetPrior } from './fleet-prior.js';
import { RuntimeAnalog } from './runtime-analog.js';
import { RuntimeModel } from './runtime-model.js';
import { type Candidate, type Observation, runCostUsd } from './types.js';

const catalog: Candidate[] = [2, 3, 4, 6, 8, 12, 16, 24, 32].map((nodes) => ({
  id: `${nodes}xm5.xlarge`,
  instanceType: 'm5.xlarge',
  engine: 'standard' as const,
  storage: null,
  nodes,
  vcpusPerNode: 4,
  memoryGibPerNode: 16,
  priceUsdPerNodeHour: 0.19,
}));

/**
 * A job over `dataGib` of input: parallel work in proportion to the data, and three times slower while the
 * cluster's memory cannot hold it (it spills).
 */
function runtimeOf(dataGib: number, candidate: Candidate): number {
  const memoryGib = candidate.nodes * candidate.memoryGibPerNode;
  return (30 + (dataGib * 40) / (candidate.nodes * candidate.vcpusPerNode)) * (memoryGib < dataGib ? 3 : 1);
}

function observation(dataGib: number, candidate: Candidate): Observation {
  const runtimeS = runtimeOf(dataGib, candidate);
  return { candidateId: candidate.id, runtimeS, costUsd: runCostUsd(candidate, runtimeS), completed: true };
}

/** Fleet jobs of one shape at several data sizes, each measured on the whole catalog. */
const fleet: FleetJob[] = [40, 60, 90].map((dataGib) => ({
  source: `etl-${dataGib}`,
  candidates: catalog,
  observations: catalog.map((candidate) => observation(dataGib, candidate)),
}));

describe('RuntimeModel', () => {
  // A job with twice the data of fleet job etl-90: it spills below 12 nodes, etl-90 below 6. Its runs: 32
  // nodes (fits), 8 and 3 (spill).
  const dataGib = 180;
  const observations = [32, 8, 3].map((nodes) => observation(dataGib, nodeCount(nodes)));
  const medianOverTruth = (model: RuntimeModel, nodes: number) => {
    const i = catalog.indexOf(nodeCount(nodes));
    return model.predict(observations).quantile(i, 0.5) / runtimeOf(dataGib, nodeCount(nodes));
  };

  it('predicts a candidate a market or a price apart exactly as its twin, and each as alone', () => {
    const prior = learnFleetPrior(fleet);
    // each catalog entry followed by a spot twin: another id and price, the same hardware and nodes
    const withTwins = catalog.flatMap((candidate) => [
      candidate,
      { ...candidate, id: `${candidate.id}-spot`, priceUsdPerNodeHour: candidate.priceUsdPerNodeHour / 3 },
    ]);
    const twinned = new RuntimeModel(prior, withTwins).predict(observations);
    const alone = new RuntimeModel(prior, catalog).predict(observations);
    catalog.forEach((_, i) => {
      for (const p of [0.1, 0.5, 0.9]) {
        expect(twinned.quantile(2 * i, p)).toBe(alone.quantile(i, p));
        expect(twinned.quantile(2 * i + 1, p)).toBe(alone.quantile(i, p));
      }
      expect(twinned.expectedRuntime(2 * i + 1)).toBe(alone.expectedRuntime(i));
      expect(twinned.analogFailureRate(2 * i + 1)).toBe(alone.analogFailureRate(i));
    });
    // a twin in one field the model reads (memory) is not one: it is predicted on its own
    const roomier = { ...(catalog[3] as Candidate), id: 'roomier', memoryGibPerNode: 32 };
    const mixed = new RuntimeModel(prior, [...catalog, roomier]).predict(observations);
    expect(mixed.quantile(catalog.length, 0.5)).not.toBe(mixed.quantile(3, 0.5));
  });

  it('reads a fleet job at another data size: twice the data behaves like it on half the nodes', () => {
    const model = new RuntimeModel(learnFleetPrior(fleet), catalog);
    expect(model.predict(observations).leadingComponents(1)[0]?.label).toBe('etl-90 at 2× its data');
    for (const nodes of [12, 16, 24]) {
      expect(medianOverTruth(model, nodes)).toBeGreaterThan(0.9);
      expect(medianOverTruth(model, nodes)).toBeLessThan(1.1);
    }
  });

  it('reads the job’s own replay only at the job’s own data size', () => {
    const prior = learnFleetPrior(fleet);
    const replay = prior.analogs.find((analog) => analog.source === 'etl-90') as RuntimeAnalog;
    const own = Object.assign(Object.create(RuntimeAnalog.prototype) as RuntimeAnalog, replay, {
      ownJob: true,
      source: 'run:1',
      label: "run 1's replay",
    });
    const mixture = new RuntimeModel({ ...prior, analogs: [own] }, catalog).predict(observations);
    expect(mixture.labels.filter((label) => label.startsWith("run 1's replay"))).toEqual(
      mixture.labels.filter((label) => label === "run 1's replay"),
    );
    expect(mixture.labels).toContain("run 1's replay");
  });

  it('names a fleet job as a person knows it, its id kept beside the name', () => {
    const named = fleet.map((job) => ({
      ...job,
      source: `project:prj_${job.source}`,
      label: `“${job.source} nightly”`,
    }));
    const [leading] = new RuntimeModel(learnFleetPrior(named), catalog)
      .predict(observations)
      .leadingComponents(1);
    expect(leading).toMatchObject({ label: '“etl-90 nightly” at 2× its data', source: 'project:prj_etl-90' });
  });

  it('read only at their own data sizes, no fleet job explains the job: it is predicted to spill where it fits', () => {
    const model = new RuntimeModel(learnFleetPrior(fleet), catalog, { dataScaleSteps: 0 });
    expect(model.predict(observations).leadingComponents(1)[0]?.label).toBe('the broad fleet model');
    expect(medianOverTruth(model, 12)).toBeGreaterThan(1.5);
  });
});

function nodeCount(nodes: number): Candidate {
  return catalog.find((candidate) => candidate.nodes === nodes) as Candidate;
}
