import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

function run(command: string, args: string[]) {
  return spawnSync(command, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

// Whole-tree checks: their time grows with the tree and a shared machine's load, not with a goal.
const wholeTree = 300_000;

describe('static checks over the whole tree', () => {
  it('type-checks with the strict compiler settings', { timeout: wholeTree }, () => {
    // the local binaries, not npx: npm itself may print configuration warnings on stderr
    const result = run('node_modules/.bin/tsc', ['-p', 'tsconfig.json', '--noEmit']);

    expect(result.stdout).toBe('');
    expect(result.status).toBe(0);
  });

  it('passes Biome formatting and lint', { timeout: wholeTree }, () => {
    const result = run('node_modules/.bin/biome', ['check', '--reporter=summary', '.']);

    expect(result.status, result.stdout + result.stderr).toBe(0);
  });

  it('rejects an import of the emulator from the optimizer, and only there', () => {
    const sandbox = mkdtempSync(path.join(tmpdir(), 'setpoint-lint-'));
    copyFileSync('biome.json', path.join(sandbox, 'biome.json'));
    const probe =
      "import { simulateRun } from '@setpoint/databricks-emulator';\n\nexport const probe = simulateRun;\n";
    for (const folder of ['optimizer', 'demo']) {
      mkdirSync(path.join(sandbox, 'packages/setpoint/src', folder), { recursive: true });
      writeFileSync(path.join(sandbox, 'packages/setpoint/src', folder, 'probe.ts'), probe);
    }
    const biome = path.resolve('node_modules/.bin/biome');

    const optimizer = spawnSync(biome, ['lint', 'packages/setpoint/src/optimizer/probe.ts'], {
      cwd: sandbox,
      encoding: 'utf8',
    });
    const demo = spawnSync(biome, ['lint', 'packages/setpoint/src/demo/probe.ts'], {
      cwd: sandbox,
      encoding: 'utf8',
    });

    expect(optimizer.status).not.toBe(0);
    expect(optimizer.stdout + optimizer.stderr).toMatch(/must never import the emulator/);
    expect(demo.status, demo.stdout + demo.stderr).toBe(0);
  });

  it("rejects foundation's S3 client in the optimizer, which may take foundation's statistics", () => {
    const sandbox = mkdtempSync(path.join(tmpdir(), 'setpoint-lint-'));
    copyFileSync('biome.json', path.join(sandbox, 'biome.json'));
    const folder = path.join(sandbox, 'packages/setpoint/src/optimizer');
    mkdirSync(folder, { recursive: true });
    writeFileSync(
      path.join(folder, 's3-probe.ts'),
      "import { createS3Client } from '@setpoint/foundation/s3';\n\nexport const probe = createS3Client;\n",
    );
    writeFileSync(
      path.join(folder, 'statistics-probe.ts'),
      "import { quantile } from '@setpoint/foundation/statistics';\n\nexport const probe = quantile;\n",
    );
    const biome = path.resolve('node_modules/.bin/biome');
    const lint = (file: string) =>
      spawnSync(biome, ['lint', `packages/setpoint/src/optimizer/${file}`], {
        cwd: sandbox,
        encoding: 'utf8',
      });

    const s3 = lint('s3-probe.ts');
    const statistics = lint('statistics-probe.ts');

    expect(s3.status).not.toBe(0);
    expect(s3.stdout + s3.stderr).toMatch(/never talks to S3/);
    expect(statistics.status, statistics.stdout + statistics.stderr).toBe(0);
  });
});
