import { NotFoundError } from '@setpoint/foundation/errors';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { invalidParameter } from './api-errors.js';
import type { EmulatorContext } from './emulator-context.js';
import { queryInt, type RouteKit, registerApi } from './route-kit.js';
import { decodePageToken, encodePageToken } from './run-views.js';

const maxDirectoryPage = 1000;

function filesPath(request: FastifyRequest, prefix: string): string {
  const raw = (request.url.split('?')[0] ?? '').replace(/^\/api\/2\.0\/fs\/(files|directories)/, '');
  const path = decodeURIComponent(raw) || '/';
  if (!path.startsWith('/Volumes/') && !path.startsWith('/Workspace/')) {
    throw invalidParameter(`${prefix} paths must start with /Volumes/: ${path}`);
  }
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

function notFound(path: string): NotFoundError {
  return new NotFoundError('NOT_FOUND', `The file or directory ${path} does not exist.`);
}

function sendFile(
  context: EmulatorContext,
  request: FastifyRequest,
  reply: FastifyReply,
  head: boolean,
): FastifyReply {
  const path = filesPath(request, 'File');
  const entry = context.fs.stat(path);
  if (!entry || entry.isDir) throw notFound(path);
  const data = context.fs.read(path);
  reply.header('last-modified', new Date(entry.modifiedMs).toUTCString()).header('accept-ranges', 'bytes');
  const range = /^bytes=(\d*)-(\d*)$/.exec(request.headers.range ?? '');
  let body = data;
  if (range && !head) {
    const start = range[1] === '' ? Math.max(0, data.length - Number(range[2])) : Number(range[1]);
    const end =
      range[1] === '' || range[2] === '' ? data.length - 1 : Math.min(Number(range[2]), data.length - 1);
    body = data.subarray(start, end + 1);
    reply.code(206).header('content-range', `bytes ${start}-${end}/${data.length}`);
  }
  reply.type('application/octet-stream').header('content-length', String(head ? data.length : body.length));
  return reply.send(head ? undefined : Buffer.from(body));
}

/** Files API for Unity Catalog Volumes: raw downloads with Range, HEAD metadata, paged directory listings. */
export function registerFilesRoutes(app: FastifyInstance, kit: RouteKit, context: EmulatorContext): void {
  app.addContentTypeParser('application/octet-stream', { parseAs: 'buffer' }, (_request, body, done) =>
    done(null, body),
  );

  registerApi(app, kit, 'GET', '/fs/files/*', ['2.0'], ({ request, reply }) =>
    sendFile(context, request, reply, false),
  );
  registerApi(app, kit, 'HEAD', '/fs/files/*', ['2.0'], ({ request, reply }) =>
    sendFile(context, request, reply, true),
  );

  registerApi(app, kit, 'PUT', '/fs/files/*', ['2.0'], ({ request, reply, query, body }) => {
    const path = filesPath(request, 'File');
    if (context.fs.stat(path) && query.overwrite === 'false') {
      throw invalidParameter(`The file ${path} already exists and overwrite is false.`);
    }
    const data = Buffer.isBuffer(body)
      ? body
      : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body ?? ''));
    context.fs.write(path, data, context.clock.now());
    return reply.code(204).send();
  });

  registerApi(app, kit, 'DELETE', '/fs/files/*', ['2.0'], ({ request, reply }) => {
    const path = filesPath(request, 'File');
    if (!context.fs.stat(path)) throw notFound(path);
    context.fs.delete(path, false);
    return reply.code(204).send();
  });

  registerApi(app, kit, 'PUT', '/fs/directories/*', ['2.0'], ({ request, reply }) => {
    context.fs.mkdirs(filesPath(request, 'Directory'), context.clock.now());
    return reply.code(204).send();
  });

  registerApi(app, kit, 'GET', '/fs/directories/*', ['2.0'], ({ request, query }) => {
    const path = filesPath(request, 'Directory');
    const entry = context.fs.stat(path);
    if (!entry?.isDir) throw notFound(path);
    const pageSize = Math.min(queryInt(query, 'page_size') ?? maxDirectoryPage, maxDirectoryPage);
    if (pageSize < 1) throw invalidParameter('page_size must be positive.');
    const offset = decodePageToken(query.page_token);
    const all = context.fs.list(path);
    const page = all.slice(offset, offset + pageSize);
    return {
      contents: page.map((item) => ({
        path: item.isDir ? `${item.path}/` : item.path,
        name: item.path.slice(item.path.lastIndexOf('/') + 1),
        is_directory: item.isDir,
        ...(item.isDir ? {} : { file_size: item.size, last_modified: item.modifiedMs }),
      })),
      ...(offset + pageSize < all.length ? { next_page_token: encodePageToken(offset + pageSize) } : {}),
    };
  });
}
