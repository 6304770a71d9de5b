import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/** Runs the CLI with a command line of space-separated arguments, in a fresh data directory. */
function setpoint(commandLine: string) {
  const dataDir = mkdtempSync(join(tmpdir(), 'setpoint-cost-cli-'));
  const result = spawnSync('node', ['bin/setpoint.js', ...commandLine.split(/\s+/)], {
    encoding: 'utf8',
    env: { ...process.env, SETPOINT_DATA_DIR: dataDir },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('setpoint cost estimate', () => {
  it('prints exactly the documented --json shape (m5.xlarge us-east-1 Premium Jobs, 1 + 8, 1 h)', () => {
    const { code, stdout } = setpoint(
      'cost estimate --cloud aws --region us-east-1 --plan premium --compute jobs --node-type m5.xlarge --workers 8 --hours 1 --json',
    );
    expect(code).toBe(0);
    const json = JSON.parse(stdout);
    expect(Object.keys(json)).toEqual([
      'currency',
      'hours',
      'nodes',
      'components',
      'by_kind',
      'total',
      'low',
      'high',
    ]);
    expect(json.currency).toBe('USD');
    expect(json.hours).toBe(1);
    expect(json.nodes).toEqual({ driver: 1, workers: 8 });
    expect(json.components).toEqual([
      {
        kind: 'compute',
        fee: null,
        description: 'm5.xlarge, on-demand',
        quantity: 9,
        unit: 'node-hour',
        unit_price_usd: 0.192,
        usd: 1.728,
        low_usd: 1.728,
        high_usd: 1.728,
      },
      {
        kind: 'platform_fee',
        fee: 'dbu',
        description: 'DBUs, m5.xlarge',
        quantity: 6.21,
        unit: 'DBU',
        unit_price_usd: 0.15,
        usd: 0.9315,
        low_usd: 0.9315,
        high_usd: 0.9315,
      },
    ]);
    expect(json.by_kind).toEqual({ compute: 1.728, platform_fee: 0.9315, storage: 0, network: 0, other: 0 });
    expect(json.total).toBeCloseTo(9 * 0.192 + 9 * 0.69 * 0.15, 6);
  });

  it('prices Azure DS3_v2 with Photon, spot with fallback and disks, showing a range', () => {
    const { code, stdout } = setpoint(
      'cost estimate --cloud azure --region eastus --node-type Standard_DS3_v2 --autoscale 2:4 --ramp-minutes 0 --photon --spot-with-fallback --ebs premium-ssd:128 --hours 2 --json',
    );
    expect(code).toBe(0);
    const json = JSON.parse(stdout);
    // ramp 0: 4 workers for the whole 2 h; DBUs: 5 nodes × 0.75 × 2 (Photon) × 2 h × $0.30
    expect(json.nodes.workers).toBe(4);
    expect(json.by_kind.platform_fee).toBeCloseTo(5 * 0.75 * 2 * 2 * 0.3, 6);
    expect(json.by_kind.storage).toBeCloseTo((5 * 19.71 * 2) / 730, 6);
    expect(json.low).toBeLessThan(json.total);
    expect(json.high).toBeGreaterThan(json.total);
  });

  it('prints one line per component and an EMR cluster its fee, without DBUs', () => {
    const { code, stdout } = setpoint(
      'cost estimate --cloud aws --region us-east-1 --platform emr --node-type m5.xlarge --workers 1 --hours 1',
    );
    expect(code).toBe(0);
    expect(stdout).toContain('1 driver (m5.xlarge) + 1 worker (m5.xlarge)');
    expect(stdout).toMatch(/Compute\s+m5\.xlarge, on-demand\s+2 node-hour × \$0\.192\s+\$0\.3840/);
    expect(stdout).toMatch(/Platform fees\s+EMR fee, m5\.xlarge\s+2 instance-hour × \$0\.048\s+\$0\.0960/);
    expect(stdout).not.toContain('DBU');
    expect(stdout).toContain('total  $0.4800');
  });

  it('rejects --workers together with --autoscale, and a malformed --ebs, with exit code 2', () => {
    const both = setpoint(
      'cost estimate --cloud aws --region us-east-1 --node-type m5.xlarge --workers 2 --autoscale 1:3 --hours 1',
    );
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('exactly one of --workers N and --autoscale MIN:MAX');
    const ebs = setpoint(
      'cost estimate --cloud aws --region us-east-1 --node-type m5.xlarge --workers 2 --ebs gp3-100 --hours 1',
    );
    expect(ebs.code).toBe(2);
    expect(ebs.stderr).toContain('TYPE:GB[xCOUNT]');
  });

  it('a missing price is an error naming instance and region (exit 3), never zero', () => {
    const { code, stderr, stdout } = setpoint(
      'cost estimate --cloud aws --region ap-south-1 --node-type m5.xlarge --workers 2 --hours 1 --json',
    );
    expect(code).toBe(3);
    expect(stdout).toBe('');
    expect(stderr).toContain('m5.xlarge');
    expect(stderr).toContain('ap-south-1');
  });

  it('applies the organization overrides in the data directory', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'setpoint-overrides-'));
    mkdirSync(join(dataDir, 'pricing'), { recursive: true });
    writeFileSync(
      join(dataDir, 'pricing', 'overrides.json'),
      JSON.stringify({
        customInstancePrices: [{ cloud: 'aws', instanceType: 'm5.xlarge', usdPerHour: 0.192 * 0.8 }],
        customDbuPrices: [{ cloud: 'aws', usdPerDbu: 0.1 }],
      }),
    );
    const { code, stdout } = setpoint(
      `cost estimate --cloud aws --region us-east-1 --node-type m5.xlarge --workers 8 --hours 1 --json --data-dir ${dataDir}`,
    );
    expect(code).toBe(0);
    const json = JSON.parse(stdout);
    expect(json.by_kind.compute).toBeCloseTo(9 * 0.192 * 0.8, 6);
    expect(json.by_kind.platform_fee).toBeCloseTo(9 * 0.69 * 0.1, 6);
  });

  it('refuses discounts in overrides.json and says where they live now (organization settings)', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'setpoint-overrides-'));
    mkdirSync(join(dataDir, 'pricing'), { recursive: true });
    writeFileSync(
      join(dataDir, 'pricing', 'overrides.json'),
      JSON.stringify({ cloudDiscountPercent: { aws: 20 } }),
    );
    const { code, stderr } = setpoint(
      `cost estimate --cloud aws --region us-east-1 --node-type m5.xlarge --workers 8 --hours 1 --json --data-dir ${dataDir}`,
    );
    expect(code).not.toBe(0);
    expect(stderr).toContain('cloudDiscountPercent');
    expect(stderr).toContain('aws_discount_pct');
  });
});

describe('setpoint cost photon-breakeven', () => {
  it('reproduces the worked example: unit costs, factor 2, 10 workers → 1.5', () => {
    const { code, stdout } = setpoint(
      'cost photon-breakeven --machine-usd-per-hour 1 --dbu-usd-per-hour 1 --photon-factor 2 --workers 10',
    );
    expect(code).toBe(0);
    expect(stdout).toContain('Photon break-even speed-up: 1.5×');
    expect(stdout).toContain('cut runtime by at least 33.33% to break even');
  });

  it('states an irregular threshold at two decimals, never six', () => {
    const { code, stdout } = setpoint(
      'cost photon-breakeven --machine-usd-per-hour 1 --dbu-usd-per-hour 1 --photon-factor 1.700508 --workers 10',
    );
    expect(code).toBe(0);
    expect(stdout).toContain('Photon break-even speed-up: 1.35×');
    expect(stdout).toContain('R_p / R_s = 1.35×');
    expect(stdout).not.toMatch(/\d\.\d{3,}×/);
  });

  it('prices a catalog cluster and explains the threshold as JSON', () => {
    const { code, stdout } = setpoint(
      'cost photon-breakeven --cloud aws --region us-east-1 --node-type m5.xlarge --workers 10 --json',
    );
    expect(code).toBe(0);
    const json = JSON.parse(stdout);
    expect(json.threshold).toBeCloseTo((0.192 + 2 * 0.69 * 0.15) / (0.192 + 0.69 * 0.15), 9);
    expect(json.reasoning.length).toBeGreaterThan(2);
  });
});
