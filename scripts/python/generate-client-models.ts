/**
 * Writes the Python package's typed models (python/src/setpoint/models.py) from the server's OpenAPI
 * document, the one `GET /api/v1/openapi.json` serves, generated from the api-contract's zod schemas:
 *
 *   node --conditions=setpoint-source --import tsx scripts/python/generate-client-models.ts
 *
 * One `TypedDict` per response the client returns (the table below), nested objects as their own
 * TypedDicts, enums as `Literal`s. tests/python/client-models.test.ts fails when the committed file is not
 * what the document gives today, so a change to the contract reaches the Python client in the same commit.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { composeServices } from 'setpoint/composition/compose-services';
import { configSchema } from 'setpoint/config/schema';
import { createLogger } from 'setpoint/logging/logger';
import { buildApp } from 'setpoint/server/build-app';

export const clientModelsFile = 'python/src/setpoint/models.py';

/** An OpenAPI 3.0 schema, as far as the generator reads it. */
export interface Schema {
  type?: string;
  nullable?: boolean;
  enum?: readonly unknown[];
  properties?: Record<string, Schema>;
  required?: readonly string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  anyOf?: readonly Schema[];
  oneOf?: readonly Schema[];
  allOf?: readonly Schema[];
}

export interface OpenApiDocument {
  paths: Record<
    string,
    Record<string, { responses?: Record<string, { content?: Record<string, { schema?: Schema }> }> }>
  >;
}

/** The responses the Python client returns, by the name the client's annotations use. */
export const clientResponses = [
  { model: 'Token', method: 'post', path: '/api/v1/auth/token', status: '200' },
  { model: 'Project', method: 'get', path: '/api/v1/projects/{id}', status: '200' },
  { model: 'ProjectPage', method: 'get', path: '/api/v1/projects', status: '200' },
  { model: 'Run', method: 'get', path: '/api/v1/projects/{id}/runs/{runId}', status: '200' },
  // a run without its profile summary and cluster timeline: what a submission and the run list return
  { model: 'RunSummary', method: 'post', path: '/api/v1/projects/{id}/runs', status: '202' },
  { model: 'RunPage', method: 'get', path: '/api/v1/projects/{id}/runs', status: '200' },
  {
    model: 'Recommendation',
    method: 'get',
    path: '/api/v1/projects/{id}/recommendations/{rid}',
    status: '200',
  },
  {
    model: 'RecommendationPage',
    method: 'get',
    path: '/api/v1/projects/{id}/recommendations',
    status: '200',
  },
  { model: 'ApprovalList', method: 'get', path: '/api/v1/approvals', status: '200' },
  {
    model: 'RecommendationRequested',
    method: 'post',
    path: '/api/v1/projects/{id}/recommendations',
    status: '202',
  },
  { model: 'Workspace', method: 'get', path: '/api/v1/workspaces/{id}', status: '200' },
  { model: 'Connection', method: 'get', path: '/api/v1/connections/{id}', status: '200' },
  {
    model: 'DatabricksRunQueued',
    method: 'post',
    path: '/api/v1/projects/{id}/databricks-runs',
    status: '202',
  },
  { model: 'EmrStepQueued', method: 'post', path: '/api/v1/projects/{id}/emr-runs', status: '202' },
] as const;

/** The other responses the client returns, which must stay the same shape as a named model. */
export const sameShapeResponses = [
  { model: 'Project', method: 'post', path: '/api/v1/projects', status: '201' },
  { model: 'Project', method: 'patch', path: '/api/v1/projects/{id}', status: '200' },
  { model: 'RunSummary', method: 'post', path: '/api/v1/projects/{id}/runs', status: '200' },
  {
    model: 'Recommendation',
    method: 'get',
    path: '/api/v1/projects/{id}/recommendations/latest',
    status: '200',
  },
  {
    model: 'Recommendation',
    method: 'post',
    path: '/api/v1/projects/{id}/recommendations/{rid}/apply',
    status: '202',
  },
] as const;

/** The server's OpenAPI document, as a server started on an empty data directory serves it. */
export async function serverOpenApiDocument(): Promise<OpenApiDocument> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'setpoint-openapi-'));
  const logger = createLogger('silent');
  const services = await composeServices({ config: configSchema.parse({ dataDir }), logger });
  try {
    const app = await buildApp({ services, logger });
    try {
      await app.ready();
      return app.swagger() as unknown as OpenApiDocument;
    } finally {
      await app.close();
    }
  } finally {
    await services.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export function responseSchema(
  document: OpenApiDocument,
  response: { method: string; path: string; status: string },
): Schema {
  const schema =
    document.paths[response.path]?.[response.method]?.responses?.[response.status]?.content?.[
      'application/json'
    ]?.schema;
  if (!schema) {
    throw new Error(
      `the OpenAPI document has no JSON response ${response.status} for ${response.method.toUpperCase()} ${response.path}`,
    );
  }
  return schema;
}

const pythonKeywords = new Set(
  'False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield'.split(
    ' ',
  ),
);

const pascal = (name: string) =>
  name
    .split(/[^A-Za-z0-9]+/)
    .filter((part) => part !== '')
    .map((part) => part[0]?.toUpperCase() + part.slice(1))
    .join('');

/** A canonical text of a schema, to recognise the same object shape under two names. */
function shapeKey(schema: Schema): string {
  const sort = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(sort);
    if (value && typeof value === 'object')
      return Object.fromEntries(
        Object.entries(value)
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([key, inner]) => [key, sort(inner)]),
      );
    return value;
  };
  return JSON.stringify(sort({ ...schema, nullable: undefined }));
}

class ModelWriter {
  readonly #classes: string[] = [];
  /** The response models by shape: a nested object of the same shape is that model (a page's items). */
  readonly #responseByShape = new Map<string, string>();
  readonly #shapeByName = new Map<string, string>();
  /** Nested models by field name and shape. */
  readonly #fieldShapes = new Map<string, string>();

  /** Declares a response model and returns its name (an earlier response's, when the shape is the same). */
  response(name: string, schema: Schema): string {
    const known = this.#responseByShape.get(shapeKey(schema));
    if (known) return known;
    this.#responseByShape.set(shapeKey(schema), this.#declare(name, schema));
    return name;
  }

  /** The response model of a schema's shape, if one was declared. */
  responseNamed(schema: Schema): string | undefined {
    return this.#responseByShape.get(shapeKey(schema));
  }

  /**
   * A nested object: a response model of its shape, else the TypedDict of the same field and shape declared
   * earlier (`Run.cluster` and `RunSummary.cluster` are one `RunCluster`), else its own, named by where it sits.
   */
  #nested(name: string, field: string, schema: Schema): string {
    const responseModel = this.responseNamed(schema);
    if (responseModel) return responseModel;
    const key = `${field}:${shapeKey(schema)}`;
    const earlier = this.#fieldShapes.get(key);
    if (earlier) return earlier;
    this.#fieldShapes.set(key, name);
    return this.#declare(name, schema);
  }

  #declare(name: string, schema: Schema): string {
    const key = shapeKey(schema);
    const declared = this.#shapeByName.get(name);
    if (declared === key) return name;
    if (declared !== undefined) throw new Error(`two different shapes would be named ${name}`);
    this.#shapeByName.set(name, key);
    const properties = Object.entries(schema.properties ?? {});
    const required = new Set(schema.required ?? []);
    const field = ([key, property]: [string, Schema]) => {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key) || pythonKeywords.has(key))
        throw new Error(`${name}.${key} is not a Python identifier: the models cannot name it`);
      return `    ${key}: ${this.type(property, `${name}${pascal(key)}`, key)}`;
    };
    const requiredFields = properties.filter(([key]) => required.has(key)).map(field);
    const optionalFields = properties.filter(([key]) => !required.has(key)).map(field);
    if (optionalFields.length === 0) {
      this.#classes.push(`class ${name}(TypedDict):\n${requiredFields.join('\n') || '    pass'}\n`);
    } else if (requiredFields.length === 0) {
      this.#classes.push(`class ${name}(TypedDict, total=False):\n${optionalFields.join('\n')}\n`);
    } else {
      this.#classes.push(`class _${name}Required(TypedDict):\n${requiredFields.join('\n')}\n`);
      this.#classes.push(`class ${name}(_${name}Required, total=False):\n${optionalFields.join('\n')}\n`);
    }
    return name;
  }

  /** The Python type of a schema; `name` is what a nested object is called, `field` the field it fills. */
  type(schema: Schema, name: string, field: string): string {
    const inner = this.#nonNullType(schema, name, field);
    return schema.nullable && inner !== 'Any' ? `Optional[${inner}]` : inner;
  }

  #nonNullType(schema: Schema, name: string, field: string): string {
    const union = schema.anyOf ?? schema.oneOf;
    if (union) {
      const members = [
        ...new Set(union.map((member, i) => this.type(member, `${name}${i + 1}`, `${field}${i + 1}`))),
      ];
      return members.length === 1 ? (members[0] as string) : `Union[${members.join(', ')}]`;
    }
    if (schema.allOf?.length === 1) return this.#nonNullType(schema.allOf[0] as Schema, name, field);
    if (schema.enum) return `Literal[${schema.enum.map(pythonLiteral).join(', ')}]`;
    switch (schema.type) {
      case 'string':
        return 'str';
      case 'integer':
        return 'int';
      case 'number':
        return 'float';
      case 'boolean':
        return 'bool';
      case 'array':
        return `List[${schema.items ? this.type(schema.items, `${name}Item`, `${field}[]`) : 'Any'}]`;
      case 'object':
        if (schema.properties && Object.keys(schema.properties).length > 0)
          return this.#nested(name, field, schema);
        return typeof schema.additionalProperties === 'object' &&
          Object.keys(schema.additionalProperties).length > 0
          ? `Dict[str, ${this.type(schema.additionalProperties, `${name}Value`, `${field}{}`)}]`
          : 'Dict[str, Any]';
      default:
        return 'Any';
    }
  }

  get classes(): readonly string[] {
    return this.#classes;
  }
}

/** A JSON value as a Python literal (an enum's members). */
function pythonLiteral(value: unknown): string {
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (value === null) return 'None';
  if (typeof value === 'string' || typeof value === 'number') return JSON.stringify(value);
  throw new Error(`an enum member ${JSON.stringify(value)} has no Python literal`);
}

/** python/src/setpoint/models.py as the document gives it. */
export function clientModelsPython(document: OpenApiDocument): string {
  const writer = new ModelWriter();
  for (const response of clientResponses) {
    const name = writer.response(response.model, responseSchema(document, response));
    if (name !== response.model) {
      throw new Error(
        `${response.model} has the same shape as ${name}: name one of them in sameShapeResponses`,
      );
    }
  }
  for (const response of sameShapeResponses) {
    const name = writer.responseNamed(responseSchema(document, response));
    if (name !== response.model) {
      throw new Error(
        `${response.method.toUpperCase()} ${response.path} ${response.status} no longer has the shape of ${response.model}`,
      );
    }
  }
  const exported = clientResponses.map((response) => response.model);
  return `"""The Setpoint API's response bodies as typed dictionaries.

Generated by scripts/python/generate-client-models.ts from the server's OpenAPI document
(GET /api/v1/openapi.json); do not edit. A test fails when this file and the document disagree.
"""

from __future__ import annotations

from typing import Any, Dict, List, Literal, Optional, TypedDict, Union

__all__ = [
${exported.map((name) => `    ${JSON.stringify(name)},`).join('\n')}
]


${writer.classes.join('\n\n')}`;
}

if (process.argv[1]?.endsWith('generate-client-models.ts')) {
  const text = clientModelsPython(await serverOpenApiDocument());
  writeFileSync(clientModelsFile, text);
  process.stdout.write(`wrote ${clientModelsFile} (${text.split('\n').length} lines)\n`);
}
