import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { shippedCatalog } from '../pricing/catalog/shipped-catalog.js';
import { createPriceCatalog } from '../pricing/price-catalog.js';
import { createCostModel } from './cost-model.js';
import { estimateClusterCost } from './estimate.js';
import { cloudOnlyBilling } from './platform-billing.js';

const scoutCsv = '../shared/datasets/scout/scout_multinode_runs.csv';

// Scout's cost model is nodes × on-demand price × runtime (no DBUs, no disks): Setpoint's cloud-only
// estimate of the same cluster must reproduce every completed run's cost.
describe.skipIf(!existsSync(scoutCsv))('Scout run costs (reads ../shared)', () => {
  it('reproduces cost_usd of every completed run from the catalog', () => {
    const model = createCostModel(createPriceCatalog([shippedCatalog]));
    const [header, ...rows] = readFileSync(scoutCsv, 'utf8').trim().split(/\r?\n/);
    const columns = (header ?? '').split(',');
    const column = (cells: string[], name: string): string => cells[columns.indexOf(name)] ?? '';
    let compared = 0;
    for (const row of rows) {
      const cells = row.split(',');
      if (column(cells, 'completed') !== 'True') continue;
      const nodeType = column(cells, 'vm_type');
      const estimate = estimateClusterCost(
        model,
        {
          cloud: 'aws',
          region: 'us-east-1',
          billing: cloudOnlyBilling,
          driverNodeType: nodeType,
          workerNodeType: nodeType,
          market: 'on-demand',
          firstOnDemand: 1,
          volumesPerNode: [],
        },
        { kind: 'fixed', workers: Number(column(cells, 'nodes')) - 1 },
        Number(column(cells, 'elapsed_time_s')) / 3600,
      );
      expect(estimate.total).toBeCloseTo(Number(column(cells, 'cost_usd')), 5);
      compared += 1;
    }
    expect(compared).toBe(1167);
  });
});
