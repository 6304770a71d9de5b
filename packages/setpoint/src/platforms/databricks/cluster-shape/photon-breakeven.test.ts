import { describe, expect, it } from 'vitest';
import { createCostModel } from '../../../cost/cost-model.js';
import { shippedCatalog } from '../../../pricing/catalog/shipped-catalog.js';
import { createPriceCatalog } from '../../../pricing/price-catalog.js';
import { databricksBilling } from './billing.js';
import { photonBreakEven, photonBreakEvenForCluster } from './photon-breakeven.js';

// Golden figures from catalog list prices: m5.xlarge us-east-1 $0.192/h, 0.69 DBU/h, Premium Jobs $0.15/DBU.
const model = createCostModel(createPriceCatalog([shippedCatalog]));
const awsJobs = {
  cloud: 'aws' as const,
  region: 'us-east-1',
  billing: databricksBilling({ plan: 'premium', compute: 'jobs', photon: false }),
  driverNodeType: 'm5.xlarge',
  workerNodeType: 'm5.xlarge',
  market: 'on-demand' as const,
  firstOnDemand: 1,
  volumesPerNode: [],
};

describe('Photon break-even', () => {
  it('the worked example: machine and DBU costs 1, Photon DBU factor 2, 10 workers → 1.5 (33% faster)', () => {
    // 10 workers + 1 driver, each $1/h machine + $1/h DBUs; Photon: $1 + $2.
    // R_s = 11 × (1 + 1) = 22; R_p = 11 × (1 + 2) = 33; threshold = 33 / 22 = 1.5; runtime cut = 1 − 1/1.5 = 1/3.
    const result = photonBreakEven([
      { count: 1, machineUsdPerHour: 1, dbuUsdPerHour: 1, photonDbuUsdPerHour: 2 },
      { count: 10, machineUsdPerHour: 1, dbuUsdPerHour: 1, photonDbuUsdPerHour: 2 },
    ]);
    expect(result.threshold).toBeCloseTo(33 / 22, 12);
    expect(result.minRuntimeReduction).toBeCloseTo(1 / 3, 12);
    expect(result.reasoning.join('\n')).toContain('1.5');
  });

  it('from the catalog: m5.xlarge us-east-1 Premium Jobs, 8 workers', () => {
    const result = photonBreakEvenForCluster(model, awsJobs, 8);
    // per node: machine 0.192; DBUs 0.69 × 0.15 = 0.1035; Photon DBUs 2 × 0.1035 = 0.207
    expect(result.threshold).toBeCloseTo((0.192 + 0.207) / (0.192 + 0.1035), 9);
  });
});
