import { describe, expect, it } from 'vitest';
import { defaultSafeExpansion, metConfigurations, safeByExpansion } from './safe-expansion.js';
import { type Candidate, type Observation, runCostUsd } from './types.js';

/** c4-like (2 GiB/vCPU) and m4-like (4 GiB/vCPU) nodes of 4 vCPUs. */
const catalog: Candidate[] = ['c4.xlarge', 'm4.xlarge'].flatMap((type) =>
  [8, 12, 16, 20, 24, 32].map((nodes) => ({
    id: `${nodes}x${type}`,
    instanceType: type,
    engine: 'standard' as const,
    storage: null,
    nodes,
    vcpusPerNode: 4,
    memoryGibPerNode: type.startsWith('c') ? 7.5 : 16,
    priceUsdPerNodeHour: type.startsWith('c') ? 0.199 : 0.2,
  })),
);

function byId(id: string): Candidate {
  const candidate = catalog.find((entry) => entry.id === id);
  if (!candidate) throw new Error(id);
  return candidate;
}

function run(id: string, runtimeS: number, completed = true): Observation {
  return { candidateId: id, runtimeS, costUsd: runCostUsd(byId(id), runtimeS), completed };
}

describe('safe expansion', () => {
  const sla = 1000;

  it('bounds fewer of the same nodes by the slack a configuration that met the SLA showed', () => {
    const met = metConfigurations(catalog, [run('24xc4.xlarge', 380), run('24xc4.xlarge', 400)], sla);
    expect(met).toEqual([{ candidate: byId('24xc4.xlarge'), worstRuntimeS: 400 }]);
    const safe = safeByExpansion(catalog, met, sla);
    // 24 → 16 nodes: perfect scaling 400 × 24 / 16 = 600 s, × 1.1 within the SLA; 20 likewise
    expect([...safe.keys()].sort()).toEqual(['16xc4.xlarge', '20xc4.xlarge']);
    expect(safe.get('16xc4.xlarge')?.boundRuntimeS).toBeCloseTo(600, 6);
    expect(safe.get('16xc4.xlarge')?.fromCandidateId).toBe('24xc4.xlarge');
    // never below two thirds of the cores, though 12 × c4 would fit the slack (400 × 2 × 1.1 = 880 s),
    // nor another family, nor a larger cluster
    expect(400 * (24 / 12) * defaultSafeExpansion.margin).toBeLessThan(sla);
    expect(safe.has('12xc4.xlarge')).toBe(false);
    expect(
      safeByExpansion(catalog, met, sla, { ...defaultSafeExpansion, minCoreShare: 0.5 }).has('12xc4.xlarge'),
    ).toBe(true);
    expect(safe.has('16xm4.xlarge')).toBe(false);
    expect(safe.has('32xc4.xlarge')).toBe(false);
  });

  it('stops at the edge of the SLA: no step whose perfect-scaling runtime, with the margin, misses it', () => {
    const met = metConfigurations(catalog, [run('24xc4.xlarge', 850)], sla);
    // 850 × 24 / 20 × 1.1 = 1122 s > 1000 s
    expect(safeByExpansion(catalog, met, sla).size).toBe(0);
    // without the margin 20 × c4 (1020 s) would still miss: the margin only narrows
    expect(safeByExpansion(catalog, met, sla, { ...defaultSafeExpansion, margin: 1 }).size).toBe(0);
  });

  it('never consolidates onto fewer, larger nodes of the family: the bound counts cores, not network', () => {
    const larger: Candidate[] = [4, 5, 6].map((nodes) => ({
      ...byId('24xc4.xlarge'),
      id: `${nodes}xc4.4xlarge`,
      instanceType: 'c4.4xlarge',
      nodes,
      vcpusPerNode: 16,
      memoryGibPerNode: 30,
      priceUsdPerNodeHour: 0.796,
    }));
    const met = metConfigurations([...catalog, ...larger], [run('24xc4.xlarge', 400)], sla);
    const safe = safeByExpansion([...catalog, ...larger], met, sla);
    // 5 × c4.4xlarge has 80 of the 96 cores (bound 480 s) and the same memory per core: the model decides it
    expect(400 * (96 / 80) * defaultSafeExpansion.margin).toBeLessThan(sla);
    expect(safe.has('5xc4.4xlarge')).toBe(false);
    expect(safe.has('20xc4.xlarge')).toBe(true);
  });

  it('never steps to less memory per core than the configuration that met the SLA', () => {
    const leaner: Candidate = { ...byId('16xc4.xlarge'), id: '16xc4.xlarge-lean', memoryGibPerNode: 4 };
    const met = metConfigurations([...catalog, leaner], [run('24xc4.xlarge', 400)], sla);
    const safe = safeByExpansion([...catalog, leaner], met, sla);
    expect(safe.has('16xc4.xlarge')).toBe(true);
    expect(safe.has('16xc4.xlarge-lean')).toBe(false);
  });

  it('counts only configurations that met the SLA in every run, and none once a later run missed', () => {
    const coldMissed = [run('32xc4.xlarge', 1200), run('24xc4.xlarge', 400)];
    // the cold start missed (the job came that way): the configuration Setpoint chose met it
    expect(metConfigurations(catalog, coldMissed, sla).map((m) => m.candidate.id)).toEqual(['24xc4.xlarge']);
    const failed = [run('32xc4.xlarge', 400), run('32xc4.xlarge', 100, false)];
    expect(metConfigurations(catalog, failed, sla)).toEqual([]);
    // a run after the cold start missed: the bound did not hold for this job, the safe set is the model's
    const late = [run('32xc4.xlarge', 400), run('24xc4.xlarge', 600), run('20xc4.xlarge', 1100)];
    expect(metConfigurations(catalog, late, sla)).toEqual([]);
    expect(metConfigurations(catalog, [run('32xc4.xlarge', 400)], Number.POSITIVE_INFINITY)).toEqual([]);
  });
});
