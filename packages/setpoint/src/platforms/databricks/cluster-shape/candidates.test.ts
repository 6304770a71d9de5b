import { defaultProjectSettings, type ProjectSettings } from '@setpoint/api-contract';
import { launchableNodeTypes as launchableOf, type NodeTypeFacts } from '@setpoint/validity/databricks';
import { describe, expect, it } from 'vitest';
import { createCostModel } from '../../../cost/cost-model.js';
import { shippedCatalog } from '../../../pricing/catalog/shipped-catalog.js';
import { createPriceCatalog } from '../../../pricing/price-catalog.js';
import type { NewClusterSpec } from '../api/schema.js';
import { buildCandidateSpace, maxPlausiblePhotonSpeedup } from './candidates.js';
import type { DatabricksClusterShape } from './cluster-shape.js';
import { costSpecOf } from './cost-spec.js';
import { photonBreakEvenForCluster } from './photon-breakeven.js';

const clusterSpecOf = (shape: DatabricksClusterShape, region: string, plan: 'premium') =>
  costSpecOf(shape, { region, plan, compute: 'jobs' });

const catalog = createPriceCatalog([shippedCatalog]);

/** `clusters/list-node-types` facts of node types, as the reader returns them. */
function launchable(ids: string[]): ReadonlyMap<string, NodeTypeFacts> {
  const listed = ids.map((id) => ({ node_type_id: id, num_cores: 4, memory_mb: 16_384 }));
  return new Map(launchableOf(listed).map((facts) => [facts.nodeTypeId, facts]));
}
const costModel = createCostModel(catalog);
const current: DatabricksClusterShape = {
  cloud: 'aws',
  workerNodeType: 'm5.xlarge',
  driverNodeType: 'm5.xlarge',
  workers: 8,
  autoscale: null,
  market: 'on-demand',
  firstOnDemand: 0,
  photon: false,
};

function space(
  settings: Partial<ProjectSettings>,
  observed: DatabricksClusterShape[] = [current],
  launchableNodeTypes: ReadonlySet<string> | null = null,
  baseCluster: NewClusterSpec | null = null,
) {
  return buildCandidateSpace(catalog, shippedCatalog.instanceTypes, {
    cloud: 'aws',
    region: 'us-east-1',
    plan: 'premium',
    settings: { ...defaultProjectSettings(), ...settings },
    current,
    observed,
    launchableNodeTypes: launchableNodeTypes ? launchable([...launchableNodeTypes]) : null,
    baseCluster,
  });
}
/** The worker node types of a space's allowed candidates. */
const allowedWorkerTypes = (built: ReturnType<typeof space>) =>
  new Set(built.entries.filter((entry) => entry.allowed).map((entry) => entry.shape.workerNodeType));

describe('buildCandidateSpace', () => {
  it('offers the current family and its compute and memory siblings, within the worker bounds', () => {
    const allowed = space({ minWorkers: 2, maxWorkers: 12 }).entries.filter((entry) => entry.allowed);
    const families = new Set(allowed.map((entry) => entry.shape.workerNodeType.split('.')[0]));
    expect([...families].sort()).toEqual(['c5', 'm5', 'r5']);
    for (const entry of allowed) {
      expect(entry.shape.workers).toBeGreaterThanOrEqual(2);
      expect(entry.shape.workers).toBeLessThanOrEqual(12);
    }
  });

  it('leaves out node types the workspace cannot launch, and names the filter and the node type', () => {
    const launchable = new Set(['m5.xlarge', 'm5.2xlarge', 'c5.xlarge', 'c5.2xlarge']);
    const bounds = { minWorkers: 2, maxWorkers: 12 };
    const built = space(bounds, [current], launchable);
    expect([...allowedWorkerTypes(built)].sort()).toEqual([...launchable].sort());
    const outcome = built.filtered.find((entry) => entry.filter === 'node-type-offered');
    expect(outcome?.dropped).toBeGreaterThan(0);
    expect(outcome?.example).toMatch(/Node type "[a-z0-9]+\.\w+" is not supported in this workspace/);
    // The current cluster's own type stays even when the list no longer offers it (it runs).
    const withoutCurrent = space(bounds, [current], new Set(['c5.xlarge']));
    expect([...allowedWorkerTypes(withoutCurrent)].sort()).toEqual(['c5.xlarge', 'm5.xlarge']);
    // Without the workspace's list, every priced sibling stays (r5 among them).
    const unknown = [...allowedWorkerTypes(space(bounds))];
    expect(unknown.some((type) => type.startsWith('r5.'))).toBe(true);
  });

  it('keeps an observed configuration outside the bounds, marked as not allowed', () => {
    const outside: DatabricksClusterShape = { ...current, workerNodeType: 'i3.xlarge' };
    const entries = space({ allowedInstanceFamilies: ['r5'] }, [outside, current]).entries;
    const kept = entries.find((entry) => entry.shape.workerNodeType === 'i3.xlarge');
    expect(kept?.allowed).toBe(false);
    const allowedTypes = entries.filter((entry) => entry.allowed).map((entry) => entry.shape.workerNodeType);
    expect(allowedTypes.every((type) => type.startsWith('r5.'))).toBe(true);
  });

  it('offers only the markets the spot policy permits, spot priced with its interruption allowance', () => {
    const markets = (policy: ProjectSettings['spotPolicy']) =>
      new Set(
        space({ spotPolicy: policy })
          .entries.filter((e) => e.allowed)
          .map((e) => e.shape.market),
      );
    expect([...markets('on-demand-only')]).toEqual(['on-demand']);
    expect([...markets('spot-with-fallback')].sort()).toEqual(['on-demand', 'spot-with-fallback']);
    expect([...markets('spot-allowed')].sort()).toEqual(['on-demand', 'spot', 'spot-with-fallback']);
    const entries = space({ spotPolicy: 'spot-with-fallback', forceOnDemandDriver: true }).entries;
    const spot = entries.find((entry) => entry.shape.market === 'spot-with-fallback');
    expect(spot?.shape.firstOnDemand).toBe(1);
  });

  it('offers Photon only where its break-even speed-up is plausible, once the job ran on both engines', () => {
    expect(space({ photonAllowed: true }).entries.filter((e) => e.shape.photon && e.allowed)).toEqual([]);
    const photon = space({ photonAllowed: true }, [current, { ...current, photon: true }]).entries.filter(
      (entry) => entry.shape.photon && entry.allowed,
    );
    expect(photon.length).toBeGreaterThan(0);
    for (const entry of photon) {
      const spec = clusterSpecOf(entry.shape, 'us-east-1', 'premium');
      expect(photonBreakEvenForCluster(costModel, spec, entry.shape.workers).threshold).toBeLessThanOrEqual(
        maxPlausiblePhotonSpeedup,
      );
    }
  });

  it('makes autoscaling candidates when the job autoscales and the scaling type is kept', () => {
    const autoscaling: DatabricksClusterShape = { ...current, autoscale: { minWorkers: 2, maxWorkers: 8 } };
    const entries = buildCandidateSpace(catalog, shippedCatalog.instanceTypes, {
      cloud: 'aws',
      region: 'us-east-1',
      plan: 'premium',
      settings: { ...defaultProjectSettings(), maintainScalingType: true },
      current: autoscaling,
      observed: [autoscaling],
    }).entries.filter((entry) => entry.allowed);
    expect(entries.length).toBeGreaterThan(0);
    for (const entry of entries) {
      expect(entry.shape.autoscale?.maxWorkers).toBe(entry.shape.workers);
      expect(entry.shape.autoscale?.minWorkers).toBeLessThanOrEqual(entry.shape.workers);
    }
  });
});
