import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const setpointBin = fileURLToPath(new URL('../../bin/setpoint.js', import.meta.url));

/** The environment that points the CLI at a running server with an API key, and a fresh config home. */
export function remoteCliEnv(serverUrl: string, key: { id: string; secret: string }): NodeJS.ProcessEnv {
  return {
    SETPOINT_URL: serverUrl,
    SETPOINT_API_KEY_ID: key.id,
    SETPOINT_API_KEY_SECRET: key.secret,
    SETPOINT_HOME: mkdtempSync(path.join(tmpdir(), 'setpoint-cli-')),
  };
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real `setpoint` binary to completion. */
export function runCli(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; input?: string } = {},
) {
  return new Promise<CliResult>((resolve, reject) => {
    const child = spawn(process.execPath, [setpointBin, ...args], {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}
