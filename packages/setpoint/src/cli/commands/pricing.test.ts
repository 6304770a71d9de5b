import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

function setpoint(args: string[], dataDir = mkdtempSync(join(tmpdir(), 'setpoint-pricing-cli-'))) {
  const result = spawnSync('node', ['bin/setpoint.js', ...args], {
    encoding: 'utf8',
    env: { ...process.env, SETPOINT_DATA_DIR: dataDir },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const fixture = (name: string): string => join('tests', 'fixtures', 'pricing', name);

describe('setpoint pricing show', () => {
  it('prints specs, prices in every shipped region and DBU rates', () => {
    const { code, stdout } = setpoint(['pricing', 'show', 'm5.xlarge', '--json']);
    expect(code).toBe(0);
    const view = JSON.parse(stdout);
    expect(view.specs).toMatchObject({ vcpus: 4, memoryGib: 16, arch: 'x86_64' });
    expect(view.prices.map((price: { region: string }) => price.region)).toEqual([
      'eu-west-1',
      'us-east-1',
      'us-west-2',
    ]);
    expect(view.prices[1]).toMatchObject({
      region: 'us-east-1',
      onDemandUsdPerHour: 0.192,
      emrFeeUsdPerHour: 0.048,
    });
    expect(view.dbu.standard.dbuPerHour).toBe(0.69);
    expect(view.dbu.usdPerDbu).toMatchObject({
      region: 'eu-west-1',
      premium: { jobs: 0.15, 'all-purpose': 0.55 },
    });
    expect(view.prices[1].spot).toEqual({ low: 0.05376, expected: 0.07296, high: 0.096, simulated: true });
  });

  it('guesses Azure from the name and shows a short name in its Standard_ form', () => {
    const { code, stdout } = setpoint(['pricing', 'show', 'DS3_v2', '--region', 'eastus']);
    expect(code).toBe(0);
    expect(stdout).toContain('Standard_DS3_v2 (azure');
    expect(stdout).toContain('eastus: on-demand $0.229/h');
  });

  it('says what is missing for an unknown region (exit 3)', () => {
    const { code, stderr } = setpoint(['pricing', 'show', 'r5.xlarge', '--region', 'sa-east-1']);
    expect(code).toBe(3);
    expect(stderr).toContain('no on-demand price for aws instance type r5.xlarge in region sa-east-1');
  });
});

describe('setpoint pricing import', () => {
  it('imports an AWS offer, spot history, an Azure page and a Databricks calculator file into the data directory', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'setpoint-import-cli-'));
    const aws = setpoint(
      ['pricing', 'import', '--aws-offer', fixture('aws-ec2-offer.json'), '--json'],
      dataDir,
    );
    expect(aws.code).toBe(0);
    expect(JSON.parse(aws.stdout).summary).toContain('2 instance prices');
    const azure = setpoint(
      ['pricing', 'import', '--azure-retail', fixture('azure-retail-page-1.json')],
      dataDir,
    );
    expect(azure.code).toBe(0);
    expect(azure.stdout).toContain('1 VM prices');
    const databricks = setpoint(
      [
        'pricing',
        'import',
        '--databricks',
        fixture('databricks-aws-pricing.json'),
        '--effective-date',
        '2024-09-01',
      ],
      dataDir,
    );
    expect(databricks.code).toBe(0);
    const spot = setpoint(
      ['pricing', 'import', '--aws-spot-history', fixture('aws-spot-price-history.json')],
      dataDir,
    );
    expect(spot.stdout).toContain('2 spot prices');
    expect(readdirSync(join(dataDir, 'pricing', 'imports'))).toHaveLength(4);

    const shown = JSON.parse(
      setpoint(['pricing', 'show', 'm5.xlarge', '--region', 'us-east-1', '--json'], dataDir).stdout,
    );
    expect(shown.prices[0].onDemandUsdPerHour).toBe(0.2);
    expect(shown.dbu.photon.dbuPerHour).toBe(1.5);
    expect(shown.catalog.layers).toHaveLength(5);
    expect(shown.prices[0].spot).toMatchObject({ low: 0.0683, high: 0.0816, simulated: false });

    const estimate = setpoint(
      [
        'cost',
        'estimate',
        '--cloud',
        'aws',
        '--region',
        'us-east-1',
        '--node-type',
        'm5.xlarge',
        '--workers',
        '8',
      ].concat(['--hours', '1', '--json']),
      dataDir,
    );
    expect(JSON.parse(estimate.stdout).by_kind.compute).toBeCloseTo(9 * 0.2, 6);
  });

  it('needs exactly one source and refuses non-http(s) URLs', () => {
    expect(setpoint(['pricing', 'import']).stderr).toContain('exactly one of --aws-offer');
    const ftp = setpoint(['pricing', 'import', '--aws-offer', 'ftp://example.com/index.json']);
    expect(ftp.code).toBe(2);
    expect(ftp.stderr).toContain('only http(s) URLs');
  });
});
