import { describe, expect, it } from 'vitest';
import { shippedCatalog } from '../../../pricing/catalog/shipped-catalog.js';
import { createPriceCatalog } from '../../../pricing/price-catalog.js';
import type { ObservedInstance } from '../cluster-shape/instance-timeline.js';
import type { ClusterReport } from '../runs/cluster-report.js';
import { estimateClusterDbus } from './dbu-estimate.js';

const catalog = createPriceCatalog([shippedCatalog]);
const workspace = { cloud: 'aws', region: 'us-east-1' };
const minute = 60_000;
const created = 1_000 * minute;
const terminated = created + 20 * minute;

/** A two-worker cluster whose nodes took 3 minutes to come up and that ran 20 minutes in all. */
const report: ClusterReport = {
  plan_type: 'Premium',
  compute_type: 'Jobs Compute',
  cluster: {
    cluster_id: 'c-1',
    node_type_id: 'm5.xlarge',
    num_workers: 2,
    aws_attributes: { availability: 'ON_DEMAND' },
    start_time: created,
    terminated_time: terminated,
  },
  cluster_events: {
    events: [
      { timestamp: created, type: 'CREATING', details: {} },
      { timestamp: created + 4 * minute, type: 'RUNNING', details: { current_num_workers: 2 } },
      { timestamp: terminated - minute, type: 'TERMINATING', details: {} },
    ],
  },
};

/** Each node billed from 3 minutes after the request, as its node_timeline rows show. */
const instances: ObservedInstance[] = ['i-d', 'i-1', 'i-2'].map((instanceId, index) => ({
  instanceId,
  driver: index === 0,
  nodeType: 'm5.xlarge',
  firstStartMs: created + 3 * minute,
  lastEndMs: terminated,
}));

describe('the DBU estimate of a job cluster', () => {
  it('times every node from its own start when the node timeline covers the cluster', () => {
    const fromEvents = estimateClusterDbus(catalog, report, workspace);
    const fromNodes = estimateClusterDbus(catalog, report, workspace, instances);

    expect(fromEvents.timing).toBe('cluster-events');
    expect(fromNodes.timing).toBe('node-timeline');
    // 3 nodes × 20 min from the events; 3 nodes × 16.5 min (the middle of the first minute on)
    expect(fromNodes.dbus / fromEvents.dbus).toBeCloseTo(16.5 / 20, 6);
    expect(fromNodes.usd / fromEvents.usd).toBeCloseTo(16.5 / 20, 6);
  });

  it('falls back on the events while the node timeline lacks the minute the cluster terminated in', () => {
    const partial = instances.map((instance) => ({ ...instance, lastEndMs: terminated - 5 * minute }));
    const estimate = estimateClusterDbus(catalog, report, workspace, partial);

    expect(estimate.timing).toBe('cluster-events');
    expect(estimate.dbus).toBe(estimateClusterDbus(catalog, report, workspace).dbus);
  });
});

describe('the DBU estimate with a launch delay learned from the bills', () => {
  it('starts the nodes launched with the cluster at the learned delay, and keeps their launch windows', () => {
    const middle = estimateClusterDbus(catalog, report, workspace, instances);
    const delayed = estimateClusterDbus(catalog, report, workspace, instances, 3 * minute + 10_000);

    expect(middle.launchDelayMs).toBeNull();
    expect(delayed.launchDelayMs).toBe(3 * minute + 10_000);
    // 3 nodes × 20 min less the delay: 16 min 50 s each, against 16.5 min from the middle of the minute
    expect(delayed.dbus / middle.dbus).toBeCloseTo((16 * 60 + 50) / (16.5 * 60), 6);
    // each node may have started anywhere in the minute of its first row, 3 minutes after the request
    expect(delayed.launchWindows).toHaveLength(3);
    for (const window of delayed.launchWindows) {
      expect(window).toMatchObject({ lowMs: 3 * minute, highMs: 4 * minute });
      expect(window.dbusPerHour).toBeGreaterThan(0);
    }
  });

  it('keeps the middle of the minute for a node whose first minute does not hold the delay', () => {
    const late = estimateClusterDbus(catalog, report, workspace, instances, 30_000);

    expect(late.dbus).toBe(estimateClusterDbus(catalog, report, workspace, instances).dbus);
  });

  it('has no launch windows when the events time the nodes', () => {
    const fromEvents = estimateClusterDbus(catalog, report, workspace, [], 30_000);

    expect(fromEvents.launchWindows).toEqual([]);
    expect(fromEvents.launchDelayMs).toBeNull();
  });
});

describe('the DBU estimate of an Azure cluster', () => {
  it('is priced at Azure list prices, whatever cloud the workspace was recorded with', () => {
    const azure: ClusterReport = {
      ...report,
      cluster: {
        ...report.cluster,
        node_type_id: 'Standard_DS3_v2',
        aws_attributes: undefined,
        azure_attributes: { availability: 'ON_DEMAND_AZURE' },
      },
    };
    const estimate = estimateClusterDbus(catalog, azure, { cloud: null, region: null });

    // Azure Premium Jobs Compute lists at $0.30 per DBU (AWS: $0.15)
    expect(estimate.usd / estimate.dbus).toBeCloseTo(0.3, 9);
    expect(
      estimateClusterDbus(catalog, report, workspace).usd /
        estimateClusterDbus(catalog, report, workspace).dbus,
    ).toBeCloseTo(0.15, 9);
  });
});
