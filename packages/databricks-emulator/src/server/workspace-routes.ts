import { ValidationError } from '@setpoint/foundation/errors';
import type { FastifyInstance } from 'fastify';
import { alreadyExists, invalidParameter, resourceMissing } from './api-errors.js';
import type { EmulatorContext } from './emulator-context.js';
import type { WorkspaceObject } from './emulator-state.js';
import { parseWith, type RouteKit, registerApi } from './route-kit.js';
import {
  secretDeleteBodySchema,
  secretPutBodySchema,
  secretScopeBodySchema,
  workspaceImportBodySchema,
  workspacePathBodySchema,
} from './schema.js';
import { workspaceUser } from './workspace-user.js';

const maxImportBytes = 10 * 1024 * 1024;

function objectInfo(object: WorkspaceObject): Record<string, unknown> {
  return {
    path: object.path,
    object_type: object.objectType,
    object_id: object.objectId,
    ...(object.language ? { language: object.language } : {}),
    modified_at: object.modifiedMs,
    created_at: object.modifiedMs,
    ...(object.objectType === 'DIRECTORY' ? {} : { size: Buffer.from(object.content, 'base64').length }),
  };
}

function parentDirectories(path: string): string[] {
  const parts = path.split('/').filter(Boolean);
  return parts.slice(0, -1).map((_, index) => `/${parts.slice(0, index + 1).join('/')}`);
}

/** Workspace import/export/list and the Secrets API (scopes, put, list, get, delete). */
export function registerWorkspaceRoutes(app: FastifyInstance, kit: RouteKit, context: EmulatorContext): void {
  const { state, clock } = context;
  const ensureDirectory = (path: string) => {
    if (state.workspace.has(path)) return;
    state.workspace.set(path, {
      path,
      objectType: 'DIRECTORY',
      content: '',
      modifiedMs: clock.now(),
      objectId: state.allocateObjectId(),
    });
  };

  // what a new workspace holds: its root, the user's home folder and the shared folder
  for (const directory of ['/', '/Users', `/Users/${workspaceUser.userName}`, '/Shared', '/Repos'])
    ensureDirectory(directory);

  registerApi(app, kit, 'POST', '/workspace/import', ['2.0'], ({ body }) => {
    const request = parseWith(workspaceImportBodySchema, body);
    if (!request.path.startsWith('/')) throw invalidParameter(`Path must be absolute: ${request.path}`);
    const content = request.content ?? '';
    if (Buffer.from(content, 'base64').length > maxImportBytes) {
      throw new ValidationError(
        'MAX_NOTEBOOK_SIZE_EXCEEDED',
        'File size imported is (>10485760 bytes), exceeded max size.',
      );
    }
    const format = request.format ?? 'SOURCE';
    if (format === 'SOURCE' && !request.language) {
      throw invalidParameter('The language field is required when importing a single source file.');
    }
    if (state.workspace.has(request.path) && !request.overwrite) {
      throw alreadyExists(`Path (${request.path}) already exists.`);
    }
    for (const directory of parentDirectories(request.path)) ensureDirectory(directory);
    state.workspace.set(request.path, {
      path: request.path,
      objectType: format === 'SOURCE' || format === 'JUPYTER' ? 'NOTEBOOK' : 'FILE',
      ...(request.language ? { language: request.language } : {}),
      content,
      modifiedMs: clock.now(),
      objectId: state.allocateObjectId(),
    });
    return {};
  });

  const requireObject = (path: string | undefined): WorkspaceObject => {
    if (!path) throw invalidParameter('Missing required field: path');
    const object = state.workspace.get(path);
    if (!object) throw resourceMissing(`Path (${path}) doesn't exist.`);
    return object;
  };

  registerApi(app, kit, 'GET', '/workspace/get-status', ['2.0'], ({ query }) =>
    objectInfo(requireObject(query.path)),
  );

  registerApi(app, kit, 'GET', '/workspace/export', ['2.0'], ({ query }) => {
    const object = requireObject(query.path);
    return { content: object.content, file_type: object.language === 'PYTHON' ? 'py' : 'txt' };
  });

  registerApi(app, kit, 'GET', '/workspace/list', ['2.0'], ({ query }) => {
    const directory = requireObject(query.path);
    if (directory.objectType !== 'DIRECTORY') return { objects: [objectInfo(directory)] };
    const prefix = directory.path === '/' ? '/' : `${directory.path}/`;
    const objects = [...state.workspace.values()]
      .filter(
        (object) =>
          object.path !== directory.path &&
          object.path.startsWith(prefix) &&
          !object.path.slice(prefix.length).includes('/'),
      )
      .sort((a, b) => (a.path < b.path ? -1 : 1));
    return { objects: objects.map(objectInfo) };
  });

  registerApi(app, kit, 'POST', '/workspace/mkdirs', ['2.0'], ({ body }) => {
    const path = parseWith(workspacePathBodySchema, body).path;
    for (const directory of [...parentDirectories(path), path]) ensureDirectory(directory);
    return {};
  });

  registerApi(app, kit, 'POST', '/workspace/delete', ['2.0'], ({ body }) => {
    const request = parseWith(workspacePathBodySchema, body);
    requireObject(request.path);
    const children = [...state.workspace.keys()].filter((path) => path.startsWith(`${request.path}/`));
    if (children.length > 0 && !request.recursive) {
      throw new ValidationError('DIRECTORY_NOT_EMPTY', `Folder (${request.path}) is not empty.`);
    }
    for (const path of [request.path, ...children]) state.workspace.delete(path);
    return {};
  });

  const requireScope = (scope: string | undefined) => {
    if (!scope) throw invalidParameter('Missing required field: scope');
    const secrets = state.secretScopes.get(scope);
    if (!secrets) throw resourceMissing(`Scope ${scope} does not exist!`);
    return secrets;
  };

  registerApi(app, kit, 'POST', '/secrets/scopes/create', ['2.0'], ({ body }) => {
    const scope = parseWith(secretScopeBodySchema, body).scope;
    if (state.secretScopes.has(scope)) throw alreadyExists(`Scope ${scope} already exists!`);
    state.secretScopes.set(scope, new Map());
    return {};
  });

  registerApi(app, kit, 'GET', '/secrets/scopes/list', ['2.0'], () => ({
    scopes: [...state.secretScopes.keys()].sort().map((name) => ({ name, backend_type: 'DATABRICKS' })),
  }));

  registerApi(app, kit, 'POST', '/secrets/scopes/delete', ['2.0'], ({ body }) => {
    const scope = parseWith(secretScopeBodySchema, body).scope;
    requireScope(scope);
    state.secretScopes.delete(scope);
    return {};
  });

  registerApi(app, kit, 'POST', '/secrets/put', ['2.0'], ({ body }) => {
    const request = parseWith(secretPutBodySchema, body);
    if ((request.string_value === undefined) === (request.bytes_value === undefined)) {
      throw invalidParameter('Exactly one of string_value or bytes_value must be specified.');
    }
    const value =
      request.string_value !== undefined
        ? Buffer.from(request.string_value).toString('base64')
        : request.bytes_value!;
    requireScope(request.scope).set(request.key, { value, updatedMs: clock.now() });
    return {};
  });

  registerApi(app, kit, 'GET', '/secrets/list', ['2.0'], ({ query }) => ({
    secrets: [...requireScope(query.scope).entries()]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([key, secret]) => ({ key, last_updated_timestamp: secret.updatedMs })),
  }));

  registerApi(app, kit, 'GET', '/secrets/get', ['2.0'], ({ query }) => {
    const secret = requireScope(query.scope).get(query.key ?? '');
    if (!secret) throw resourceMissing(`Secret ${query.key} does not exist in scope ${query.scope}.`);
    return { key: query.key, value: secret.value };
  });

  registerApi(app, kit, 'POST', '/secrets/delete', ['2.0'], ({ body }) => {
    const request = parseWith(secretDeleteBodySchema, body);
    const secrets = requireScope(request.scope);
    if (!secrets.delete(request.key))
      throw resourceMissing(`Secret ${request.key} does not exist in scope ${request.scope}.`);
    return {};
  });
}
