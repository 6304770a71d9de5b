import type { CostTotals, SpendReportWire } from '@setpoint/api-contract';
import { describe, expect, it } from 'vitest';
import { formatUsd } from '../output.js';
import { spendTable } from './spend.js';

const totals = (compute: number, fee: number, runs: number): CostTotals => ({
  total_usd: compute + fee,
  by_kind: { compute, platform_fee: fee, storage: 0, network: 0, other: 0 },
  platform_fees: [],
  platforms: [],
  runs,
});

describe('setpoint spend', () => {
  it('prints a row per project, largest first, and the API’s total as the TOTAL row, in cents', () => {
    const report: SpendReportWire = {
      period: { from: 0, to: 1 },
      total: totals(2.5, 0.8, 3),
      savings_to_date_usd: 0.35,
      projected_12_month_savings_usd: 12,
      savings_at_risk_usd: 0,
      projects: [
        {
          project_id: 'p1',
          name: 'ledger-sort',
          platform: 'emr',
          spend: totals(0.5, 0.3, 1),
          savings_to_date_usd: null,
          projected_12_month_savings_usd: null,
          sla_at_risk: false,
        },
        {
          project_id: 'p2',
          name: 'orders',
          platform: 'databricks',
          spend: totals(2, 0.5, 2),
          savings_to_date_usd: 0.35,
          projected_12_month_savings_usd: 12,
          sla_at_risk: false,
        },
      ],
    };
    const { headers, rows } = spendTable(report);
    expect(headers).toEqual([
      'PROJECT',
      'PLATFORM',
      'RUNS',
      'COMPUTE',
      'PLATFORM FEES',
      'STORAGE',
      'NETWORK',
      'OTHER',
      'TOTAL',
      'SAVINGS TO DATE',
    ]);
    expect(rows).toEqual([
      ['orders', 'Databricks', '2', '$2.00', '$0.50', '$0.00', '$0.00', '$0.00', '$2.50', '$0.35'],
      ['ledger-sort', 'EMR', '1', '$0.50', '$0.30', '$0.00', '$0.00', '$0.00', '$0.80', '—'],
      ['TOTAL', 'all', '3', '$2.50', '$0.80', '$0.00', '$0.00', '$0.00', '$3.30', '$0.35'],
    ]);
  });

  it('writes money to the cent, with the sign before the dollar', () => {
    expect(formatUsd(0.354)).toBe('$0.35');
    expect(formatUsd(0.8)).toBe('$0.80');
    expect(formatUsd(-1.2)).toBe('-$1.20');
    expect(formatUsd(1234.5)).toBe('$1,234.50');
    expect(formatUsd(-0.001)).toBe('$0.00');
    expect(formatUsd(null)).toBe('—');
  });
});
