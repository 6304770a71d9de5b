import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  clientModelsFile,
  clientModelsPython,
  type OpenApiDocument,
  responseSchema,
  serverOpenApiDocument,
} from '../../scripts/python/generate-client-models.js';

const regenerate =
  'run: node --conditions=setpoint-source --import tsx scripts/python/generate-client-models.ts';

describe("the Python package's models", () => {
  let document: OpenApiDocument;
  beforeAll(async () => {
    document = await serverOpenApiDocument();
  });

  it("are what the server's OpenAPI document gives today", () => {
    expect(readFileSync(clientModelsFile, 'utf8'), regenerate).toBe(clientModelsPython(document));
  });

  it('follow a response the client reads when it changes', () => {
    const changed = structuredClone(document);
    const run = responseSchema(changed, {
      method: 'get',
      path: '/api/v1/projects/{id}/runs/{runId}',
      status: '200',
    });
    run.properties = { ...run.properties, pipeline_state: { type: 'string', enum: ['DONE', 'FAILED'] } };

    const models = clientModelsPython(changed);
    expect(models).not.toBe(readFileSync(clientModelsFile, 'utf8'));
    expect(models).toMatch(/class Run\(TypedDict\):[\s\S]*?pipeline_state: Literal\["DONE", "FAILED"\]/);
  });

  it('refuse a response of another shape where the client expects a named model', () => {
    const changed = structuredClone(document);
    const created = responseSchema(changed, { method: 'post', path: '/api/v1/projects', status: '201' });
    const { name: _dropped, ...rest } = created.properties ?? {};
    created.properties = rest;

    expect(() => clientModelsPython(changed)).toThrow(
      'POST /api/v1/projects 201 no longer has the shape of Project',
    );
  });
});
