import { ValidationError } from '@setpoint/foundation/errors';
import type { FastifyInstance } from 'fastify';
import { alreadyExists, invalidParameter, resourceMissing } from './api-errors.js';
import type { EmulatorContext } from './emulator-context.js';
import { parseWith, queryInt, type RouteKit, registerApi } from './route-kit.js';
import {
  dbfsAddBlockBodySchema,
  dbfsCloseBodySchema,
  dbfsCreateBodySchema,
  dbfsPathBodySchema,
  dbfsPutBodySchema,
} from './schema.js';
import type { FileEntry } from './virtual-fs.js';

export const dbfsMaxReadBytes = 1024 * 1024;
const dbfsDefaultReadBytes = 512 * 1024;

function fileInfo(entry: FileEntry): Record<string, unknown> {
  return {
    path: entry.path,
    is_dir: entry.isDir,
    file_size: entry.size,
    modification_time: entry.modifiedMs,
  };
}

function requirePath(query: Record<string, string | undefined>): string {
  const path = query.path;
  if (!path) throw invalidParameter('Missing required field: path');
  return path;
}

/** DBFS API 2.0: list/get-status/read with the real 1 MB read limit and errors, plus the write calls. */
export function registerDbfsRoutes(app: FastifyInstance, kit: RouteKit, context: EmulatorContext): void {
  const { fs, clock } = context;
  const handles = new Map<number, { path: string; chunks: Uint8Array[] }>();
  let nextHandle = 1;

  registerApi(app, kit, 'GET', '/dbfs/list', ['2.0'], ({ query }) => {
    const entry = fs.statOrThrow(requirePath(query));
    return { files: entry.isDir ? fs.list(entry.path).map(fileInfo) : [fileInfo(entry)] };
  });

  registerApi(app, kit, 'GET', '/dbfs/get-status', ['2.0'], ({ query }) =>
    fileInfo(fs.statOrThrow(requirePath(query))),
  );

  registerApi(app, kit, 'GET', '/dbfs/read', ['2.0'], ({ query }) => {
    const path = requirePath(query);
    const offset = queryInt(query, 'offset') ?? 0;
    const length = queryInt(query, 'length') ?? dbfsDefaultReadBytes;
    if (offset < 0) throw invalidParameter(`Offset must be non-negative: ${offset}`);
    if (length < 0) throw invalidParameter(`Length must be non-negative: ${length}`);
    if (length > dbfsMaxReadBytes) {
      throw new ValidationError(
        'MAX_READ_SIZE_EXCEEDED',
        `Cannot read more than 1.0MiB (requested ${length} bytes).`,
      );
    }
    const data = fs.read(path);
    const slice = data.subarray(Math.min(offset, data.length), Math.min(offset + length, data.length));
    return { bytes_read: slice.length, data: Buffer.from(slice).toString('base64') };
  });

  registerApi(app, kit, 'POST', '/dbfs/put', ['2.0'], ({ body }) => {
    const request = parseWith(dbfsPutBodySchema, body);
    if (fs.stat(request.path) && !request.overwrite) {
      throw alreadyExists(`A file or directory already exists at the input path ${request.path}.`);
    }
    fs.write(request.path, Buffer.from(request.contents ?? '', 'base64'), clock.now());
    return {};
  });

  registerApi(app, kit, 'POST', '/dbfs/mkdirs', ['2.0'], ({ body }) => {
    fs.mkdirs(parseWith(dbfsPathBodySchema, body).path, clock.now());
    return {};
  });

  registerApi(app, kit, 'POST', '/dbfs/delete', ['2.0'], ({ body }) => {
    const request = parseWith(dbfsPathBodySchema, body);
    fs.delete(request.path, request.recursive ?? false);
    return {};
  });

  registerApi(app, kit, 'POST', '/dbfs/create', ['2.0'], ({ body }) => {
    const request = parseWith(dbfsCreateBodySchema, body);
    if (fs.stat(request.path) && !request.overwrite) {
      throw alreadyExists(`A file or directory already exists at the input path ${request.path}.`);
    }
    const handle = nextHandle;
    nextHandle += 1;
    handles.set(handle, { path: request.path, chunks: [] });
    return { handle };
  });

  registerApi(app, kit, 'POST', '/dbfs/add-block', ['2.0'], ({ body }) => {
    const request = parseWith(dbfsAddBlockBodySchema, body);
    const open = handles.get(request.handle);
    if (!open) throw resourceMissing(`Handle ${request.handle} does not exist.`);
    const block = Buffer.from(request.data, 'base64');
    if (block.length > dbfsMaxReadBytes) {
      throw new ValidationError(
        'MAX_BLOCK_SIZE_EXCEEDED',
        'Blocks must be at most 1 MB after base64 decoding.',
      );
    }
    open.chunks.push(block);
    return {};
  });

  registerApi(app, kit, 'POST', '/dbfs/close', ['2.0'], ({ body }) => {
    const request = parseWith(dbfsCloseBodySchema, body);
    const open = handles.get(request.handle);
    if (!open) throw resourceMissing(`Handle ${request.handle} does not exist.`);
    handles.delete(request.handle);
    fs.write(open.path, Buffer.concat(open.chunks), clock.now());
    return {};
  });
}
