import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface MotoServer {
  endpoint: string;
  close(): Promise<void>;
}

/** The Python that has moto (CI's virtualenv exports it as SETPOINT_PYTHON). */
export const pythonForMoto = process.env.SETPOINT_PYTHON ?? 'python3';

const motoMain = `
import json, sys
from moto.server import ThreadedMotoServer
server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
server.start()
print(json.dumps({"port": server.get_host_and_port()[1]}), flush=True)
sys.stdin.read()
server.stop()
`;

/**
 * moto in server mode (PyPI `moto[server]`) on 127.0.0.1, a free port: one endpoint for every AWS service
 * it implements (EMR, S3, STS). It stops when its stdin closes, so it never outlives the test process.
 */
export async function startMotoServer(): Promise<MotoServer> {
  const child: ChildProcess = spawn(pythonForMoto, ['-c', motoMain], { stdio: ['pipe', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) =>
      reject(new Error(`moto server exited with ${code} (is moto[server] installed for ${pythonForMoto}?)`)),
    );
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    lines.once('line', (line) => resolve((JSON.parse(line) as { port: number }).port));
  });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    async close() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.stdin?.end();
      await exited;
    },
  };
}
