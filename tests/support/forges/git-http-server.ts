import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GitHttpServer {
  /** `http://127.0.0.1:<port>`: a repository `<root>/acme/infra.git` is at `<url>/acme/infra.git`. */
  url: string;
  /** Requests refused for want of the token. */
  refused: number;
  close(): Promise<void>;
}

/**
 * Bare repositories under `root` over git's smart HTTP protocol, served by git's own `git http-backend`
 * (CGI): a remote on 127.0.0.1 that behaves as GitHub's and GitLab's do, including the token check
 * (HTTP Basic with `x-access-token` or `oauth2` and the token as password).
 */
export async function startGitHttpServer(root: string, token: string): Promise<GitHttpServer> {
  let refused = 0;
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const [scheme, encoded] = (request.headers.authorization ?? '').split(' ');
    const [user, password] = Buffer.from(encoded ?? '', 'base64')
      .toString('utf8')
      .split(':');
    if (scheme !== 'Basic' || password !== token || !['x-access-token', 'oauth2'].includes(user ?? '')) {
      refused += 1;
      response.writeHead(401, { 'www-authenticate': 'Basic realm="git"' });
      response.end();
      return;
    }
    const cgi = spawn('git', ['http-backend'], {
      env: {
        ...process.env,
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: '1',
        REMOTE_USER: user,
        REQUEST_METHOD: request.method ?? 'GET',
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: request.headers['content-type'] ?? '',
        ...(request.headers['content-encoding']
          ? { HTTP_CONTENT_ENCODING: request.headers['content-encoding'] }
          : {}),
        GIT_HTTP_MAX_REQUEST_BUFFER: '100M',
      },
    });
    request.pipe(cgi.stdin);
    let head = Buffer.alloc(0);
    let headersSent = false;
    cgi.stdout.on('data', (chunk: Buffer) => {
      if (headersSent) {
        response.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      const headers: Record<string, string> = {};
      let status = 200;
      for (const line of head.subarray(0, end).toString('utf8').split('\r\n')) {
        const [name, ...rest] = line.split(':');
        const value = rest.join(':').trim();
        if (name?.toLowerCase() === 'status') status = Number.parseInt(value, 10);
        else if (name) headers[name] = value;
      }
      response.writeHead(status, headers);
      headersSent = true;
      response.write(head.subarray(end + 4));
    });
    cgi.on('close', () => {
      if (!headersSent) response.writeHead(500);
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get refused() {
      return refused;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
