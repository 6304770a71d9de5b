import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';

const packageVersion = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;

describe('setpoint binary', () => {
  it('prints the package version', async () => {
    const result = await runCli(['--version']);

    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe(packageVersion);
  });

  it('rejects an unknown command with a non-zero exit and no stack trace', async () => {
    const result = await runCli(['frobnicate']);

    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/unknown command 'frobnicate'/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('reports invalid configuration in one line with the config exit code', async () => {
    const result = await runCli(['serve', '--port', 'not-a-port']);

    expect(result.code).toBe(8);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/^setpoint: invalid configuration: .*port/);
  });

  it('names the port in use and exits 2 when serve cannot listen', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const address = blocker.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const dataDir = mkdtempSync(path.join(tmpdir(), 'setpoint-port-in-use-'));
    try {
      const result = await runCli(['serve', '--port', String(port), '--data-dir', dataDir]);

      expect(result.code).toBe(2);
      expect(result.stderr).toBe(`setpoint: port ${port} is in use; pick another with --port\n`);
    } finally {
      blocker.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
