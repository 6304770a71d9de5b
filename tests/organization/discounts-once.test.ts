import type { CostTotals } from '@setpoint/api-contract';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { processedFixtureRun } from '../service/support/fixture-runs.js';
import { createHarness, type Harness } from '../service/support/service-harness.js';
import { feeUnits, usdOf } from '../support/run-costs.js';

vi.setConfig({ testTimeout: 150_000, hookTimeout: 150_000 });

const summaryUrl = `/api/v1/insights/summary?from=0&to=${Number.MAX_SAFE_INTEGER}`;

/**
 * Discounts are organization settings and nothing else: the price catalog (with the data directory's custom
 * prices) costs runs at list, and the organization summary takes the discount off once. Before, a discount in
 * `pricing/overrides.json` lowered every run cost and the organization discount came off again.
 */
describe('organization discounts apply once', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await createHarness({
      startWorkers: true,
      pricingOverrides: { customDbuPrices: [{ cloud: 'aws', usdPerDbu: 0.2 }] },
    });
  });

  afterAll(async () => {
    await h?.close();
  });

  it('a run is costed at the custom price, and the summary discounts its DBUs once', async () => {
    const project = (await h.request('POST', '/api/v1/projects', { name: 'discounted' })).json();
    const runId = await processedFixtureRun(h, project.id, 'discount-1');
    const run = (await h.request('GET', `/api/v1/projects/${project.id}/runs/${runId}`)).json();
    expect(run.cost).not.toBeNull();

    const units = feeUnits(run.cost, 'dbu');
    expect(units).toBeGreaterThan(0);
    expect(usdOf(run.cost, 'platform_fee', 'dbu')).toBeCloseTo(units * 0.2, 6); // the custom $/DBU, not discounted

    const atList = (await h.request('GET', summaryUrl)).json().spend as CostTotals;
    expect(atList.total_usd).toBeCloseTo(run.cost.total_usd, 6);
    expect(atList.by_kind.platform_fee).toBeGreaterThan(0);

    const patched = await h.request('PATCH', '/api/v1/organization/settings', {
      dbu_discount_pct: 20,
      aws_discount_pct: 10,
    });
    expect(patched.status).toBe(200);

    const discounted = (await h.request('GET', summaryUrl)).json().spend as CostTotals;
    expect(discounted.by_kind.platform_fee).toBeCloseTo(atList.by_kind.platform_fee * 0.8, 6);
    // the run was priced at AWS prices (its components say so), so what AWS bills takes the AWS discount
    expect(discounted.by_kind.compute).toBeCloseTo(atList.by_kind.compute * 0.9, 6);
    expect(discounted.total_usd).toBeCloseTo(
      Object.values(discounted.by_kind).reduce((sum, usd) => sum + usd, 0),
      9,
    );
    // the run itself stays at list (custom) prices: runs remain comparable when a discount changes
    const again = (await h.request('GET', `/api/v1/projects/${project.id}/runs/${runId}`)).json();
    expect(again.cost.total_usd).toBeCloseTo(run.cost.total_usd, 9);
  });

  it('a discount left in overrides.json stops the service with the place it moved to', async () => {
    await expect(createHarness({ pricingOverrides: { dbuDiscountPercent: 20 } })).rejects.toThrow(
      /dbuDiscountPercent.*organization settings/s,
    );
  });
});
