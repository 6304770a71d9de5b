import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
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
  /** How many requests a rule has broken so far. */
  applied(): number;
  /**
   * The next `count` GETs whose path matches `pattern` get the status line and half the body, then the
   * connection is cut: a transfer failing mid-way, which no client can retry inside the request.
   */
  cutDownloads(pattern: RegExp, count: number): void;
  /**
   * Like `cutDownloads`, but the connection is then held open with nothing more sent: a transfer that
   * stalls mid-way, which only the client's idle timeout ends.
   */
  stallDownloads(pattern: RegExp, count: number): void;
  /** The next `count` requests matching `pattern` are answered with a 503 SlowDown. */
  failRequests(pattern: RegExp, count: number): void;
  /**
   * The next `count` requests matching `pattern` (`Infinity`: all of them) are answered with an S3
   * error document: `status` and `code`, e.g. 500 InternalError, 403 AccessDenied, 404 NoSuchKey.
   */
  answerError(pattern: RegExp, count: number, status: number, code: string): void;
  /** The next `count` requests matching `pattern` are forwarded only after `delayMs`. */
  delay(pattern: RegExp, count: number, delayMs: number): void;
  close(): Promise<void>;
}

type FaultAction =
  | { kind: 'cut' | 'stall' }
  | { kind: 'error'; status: number; code: string }
  | { kind: 'delay'; delayMs: number };

const errorMessages: Record<string, string> = {
  SlowDown: 'Reduce your request rate.',
  InternalError: 'We encountered an internal error. Please try again.',
  AccessDenied: 'Access Denied',
  NoSuchKey: 'The specified key does not exist.',
};

/** Sits between Setpoint and the S3 test server to break chosen requests. */
export async function startS3FaultProxy(target: string): Promise<S3FaultProxy> {
  const upstream = new URL(target);
  const rules: { pattern: RegExp; left: number; action: FaultAction }[] = [];
  const seen: string[] = [];
  let applied = 0;
  const take = (method: string, pathname: string) => {
    const rule = rules.find(
      (candidate) =>
        candidate.left > 0 &&
        candidate.pattern.test(pathname) &&
        ((candidate.action.kind !== 'cut' && candidate.action.kind !== 'stall') || method === 'GET'),
    );
    if (!rule) return undefined;
    rule.left -= 1;
    applied += 1;
    return rule.action;
  };
  /** Forwards the request; `half` sends only half the answer's body, then cuts or stalls. */
  const forward = (incoming: IncomingMessage, outgoing: ServerResponse, half?: 'cut' | 'stall') => {
    const forwarded = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: incoming.method,
        path: incoming.url,
        headers: incoming.headers,
      },
      (response) => {
        outgoing.writeHead(response.statusCode ?? 502, response.headers);
        if (!half) {
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
            if (half === 'cut') outgoing.socket?.destroy();
          }
        });
      },
    );
    forwarded.on('error', () => outgoing.socket?.destroy());
    incoming.pipe(forwarded);
  };
  const server: Server = createServer((incoming, outgoing) => {
    const pathname = decodeURIComponent((incoming.url ?? '/').split('?')[0] ?? '/');
    const method = incoming.method ?? 'GET';
    seen.push(`${method} ${pathname}`);
    const action = take(method, pathname);
    if (action?.kind === 'error') {
      incoming.resume();
      outgoing.writeHead(action.status, { 'content-type': 'application/xml' });
      outgoing.end(
        `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${action.code}</Code><Message>${errorMessages[action.code] ?? action.code}</Message><Resource>${pathname}</Resource><RequestId>0000000000000000</RequestId></Error>`,
      );
      return;
    }
    if (action?.kind === 'delay') {
      setTimeout(() => forward(incoming, outgoing), action.delayMs);
      return;
    }
    forward(incoming, outgoing, action?.kind === 'cut' || action?.kind === 'stall' ? action.kind : undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    seen,
    applied: () => applied,
    cutDownloads(pattern, count) {
      rules.push({ pattern, left: count, action: { kind: 'cut' } });
    },
    stallDownloads(pattern, count) {
      rules.push({ pattern, left: count, action: { kind: 'stall' } });
    },
    failRequests(pattern, count) {
      rules.push({ pattern, left: count, action: { kind: 'error', status: 503, code: 'SlowDown' } });
    },
    answerError(pattern, count, status, code) {
      rules.push({ pattern, left: count, action: { kind: 'error', status, code } });
    },
    delay(pattern, count, delayMs) {
      rules.push({ pattern, left: count, action: { kind: 'delay', delayMs } });
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
