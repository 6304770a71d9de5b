import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { S3Credentials } from '@setpoint/foundation/s3';

/** s3rver's fixed key pair. */
export const s3TestCredentials: S3Credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export interface S3TestServer {
  endpoint: string;
  credentials: S3Credentials;
  close(): Promise<void>;
}

const s3rverMain = `
const S3rver = require(process.argv[1]);
const [directory, ...buckets] = process.argv.slice(2);
new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory,
  configureBuckets: buckets.map((name) => ({ name, configs: [] })) })
  .run()
  .then((address) => console.log(JSON.stringify({ port: address.port })));
`;

/**
 * s3rver on 127.0.0.1 (a free port) in a child process, storing below a fresh temporary directory. Its
 * ListObjectsV2 continuation tokens use DES, which Node 20's OpenSSL 3 offers only with the legacy
 * provider, hence the separate process with that flag.
 */
export async function startS3TestServer(buckets: string[]): Promise<S3TestServer> {
  const directory = mkdtempSync(path.join(tmpdir(), 'setpoint-s3-'));
  const modulePath = createRequire(import.meta.url).resolve('s3rver');
  const child: ChildProcess = spawn(
    process.execPath,
    ['--openssl-legacy-provider', '-e', s3rverMain, modulePath, directory, ...buckets],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`s3rver exited with ${code}`)));
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    lines.once('line', (line) => resolve((JSON.parse(line) as { port: number }).port));
  });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    credentials: s3TestCredentials,
    async close() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

export interface S3FaultProxy {
  endpoint: string;
  /** Requests seen per `METHOD path` (query string left out). */
  seen: string[];
  /**
   * The next `count` GETs whose path matches `pattern` get the status line and half the body, then the
   * connection is cut: a transfer failing mid-way, which no client can retry inside the request.
   */
  cutDownloads(pattern: RegExp, count: number): void;
  /** The next `count` requests matching `pattern` are answered with a 503 SlowDown. */
  failRequests(pattern: RegExp, count: number): void;
  close(): Promise<void>;
}

/** Sits between Setpoint and the S3 test server to break chosen requests. */
export async function startS3FaultProxy(target: string): Promise<S3FaultProxy> {
  const upstream = new URL(target);
  const rules: { pattern: RegExp; left: number; action: 'cut' | 'fail' }[] = [];
  const seen: string[] = [];
  const take = (method: string, pathname: string) => {
    const rule = rules.find(
      (candidate) =>
        candidate.left > 0 &&
        candidate.pattern.test(pathname) &&
        (candidate.action === 'fail' || method === 'GET'),
    );
    if (rule) rule.left -= 1;
    return rule?.action;
  };
  const server: Server = createServer((incoming, outgoing) => {
    const pathname = decodeURIComponent((incoming.url ?? '/').split('?')[0] ?? '/');
    const method = incoming.method ?? 'GET';
    seen.push(`${method} ${pathname}`);
    const action = take(method, pathname);
    if (action === 'fail') {
      incoming.resume();
      outgoing.writeHead(503, { 'content-type': 'application/xml' });
      outgoing.end(
        '<?xml version="1.0"?><Error><Code>SlowDown</Code><Message>Reduce your request rate.</Message></Error>',
      );
      return;
    }
    const forwarded = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        method,
        path: incoming.url,
        headers: incoming.headers,
      },
      (response) => {
        outgoing.writeHead(response.statusCode ?? 502, response.headers);
        if (action !== 'cut') {
          response.pipe(outgoing);
          return;
        }
        const length = Number(response.headers['content-length'] ?? 0);
        let sent = 0;
        response.on('data', (chunk: Buffer) => {
          const room = Math.floor(length / 2) - sent;
          if (room > 0) outgoing.write(chunk.subarray(0, room));
          sent += Math.max(0, Math.min(room, chunk.length));
          if (sent >= Math.floor(length / 2)) {
            response.destroy();
            outgoing.socket?.destroy();
          }
        });
      },
    );
    forwarded.on('error', () => outgoing.socket?.destroy());
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    seen,
    cutDownloads(pattern, count) {
      rules.push({ pattern, left: count, action: 'cut' });
    },
    failRequests(pattern, count) {
      rules.push({ pattern, left: count, action: 'fail' });
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
