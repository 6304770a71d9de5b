import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { setpointBin } from './run-cli.js';

export interface SpawnedServer {
  url: string;
  process: ChildProcessWithoutNullStreams;
  output(): string;
  stop(): Promise<number | null>;
}

/**
 * Starts a long-running `setpoint` command and resolves once it prints a line matching `ready`
 * (whose first capture group is the URL). Rejects if the process exits first.
 */
export function spawnSetpoint(
  args: string[],
  ready: RegExp,
  env: NodeJS.ProcessEnv = {},
): Promise<SpawnedServer> {
  const child = spawn(process.execPath, [setpointBin, ...args], { env: { ...process.env, ...env } });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = ready.exec(output);
      if (match?.[1]) {
        resolve({
          url: match[1],
          process: child,
          output: () => output,
          stop: async () => {
            child.kill('SIGTERM');
            return exited;
          },
        });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then((code) =>
      reject(new Error(`setpoint ${args.join(' ')} exited with ${code}:\n${output}`)),
    );
  });
}
