import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';

const scratch = mkdtempSync(join(tmpdir(), 'setpoint-emulator-cli-'));
const children: ChildProcessWithoutNullStreams[] = [];

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(scratch, { recursive: true, force: true });
});

/** Starts `setpoint emulator` and resolves with its first stdout line. */
function startCli(args: string[]): Promise<{ child: ChildProcessWithoutNullStreams; firstLine: string }> {
  const child = spawn('node', ['bin/setpoint.js', 'emulator', '--port', '0', ...args]);
  children.push(child);
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    lines.once('line', (firstLine) => resolve({ child, firstLine }));
    child.once('exit', (code) => reject(new Error(`emulator exited with ${code}: ${stderr}`)));
  });
}

function parseListening(line: string): Record<string, string> {
  return Object.fromEntries([...line.matchAll(/(\w+)=(\S+)/g)].map((match) => [match[1]!, match[2]!]));
}

describe('setpoint emulator', () => {
  it('prints a parseable first line, serves the API with its token and stops on SIGTERM', async () => {
    const { child, firstLine } = await startCli([
      '--clock-speed',
      '0',
      '--token',
      'dapi-test',
      '--start-time',
      '2026-01-05T06:00:00Z',
    ]);
    expect(firstLine).toMatch(
      /^setpoint-emulator listening url=http:\/\/127\.0\.0\.1:\d+ host=127\.0\.0\.1 port=\d+ token=dapi-test$/,
    );
    const { url, token } = parseListening(firstLine);
    const response = await fetch(`${url}/api/2.1/jobs/list?limit=100`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { jobs: Array<{ settings: { name: string } }> };
    expect(body.jobs.length).toBeGreaterThanOrEqual(10);
    const status = (await (
      await fetch(`${url}/emulator/admin/status`, { headers: { authorization: `Bearer ${token}` } })
    ).json()) as {
      now: number;
    };
    expect(status.now).toBe(Date.UTC(2026, 0, 5, 6, 0, 0));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('loads fault rules from a file and can start without the Job Bank, printing JSON', async () => {
    const faults = join(scratch, 'faults.json');
    writeFileSync(
      faults,
      JSON.stringify([
        { kind: 'http', match: 'GET */jobs/list', count: 1, status: 429, retryAfterSeconds: 3 },
      ]),
    );
    const { child, firstLine } = await startCli(['--faults', faults, '--no-preload', '--json']);
    const { url, token } = JSON.parse(firstLine) as { url: string; token: string };
    const headers = { authorization: `Bearer ${token}` };
    const limited = await fetch(`${url}/api/2.2/jobs/list`, { headers });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('3');
    const after = (await (await fetch(`${url}/api/2.2/jobs/list`, { headers })).json()) as {
      jobs: unknown[];
    };
    expect(after.jobs).toEqual([]);
    child.kill('SIGTERM');
  });

  it('fails with a one-line error for an unreadable fault file', async () => {
    const bad = join(scratch, 'bad.json');
    writeFileSync(bad, '[{"kind":"nope"}]');
    const child = spawn('node', ['bin/setpoint.js', 'emulator', '--port', '0', '--faults', bad]);
    children.push(child);
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toMatch(/^setpoint: --faults .* is not a list of fault rules/);
  });
});
