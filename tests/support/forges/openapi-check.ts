import { createRequire } from 'node:module';
import { Ajv, type ValidateFunction } from 'ajv';

/**
 * Checks HTTP requests against GitHub's published REST description (`@octokit/openapi`, OpenAPI 3.0):
 * the operation exists for the method and path, every query parameter and body field is one it
 * declares, required ones are there, and the body validates against its schema (Ajv).
 */
interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: unknown;
}
interface Operation {
  operationId: string;
  parameters?: (Parameter | { $ref: string })[];
  requestBody?: { required?: boolean; content: Record<string, { schema: unknown }> };
  responses: Record<
    string,
    { content?: Record<string, { schema: unknown; examples?: Record<string, unknown> }> }
  >;
}
interface Description {
  paths: Record<string, Record<string, Operation>>;
  components: Record<string, Record<string, unknown>>;
}

let description: Description | undefined;

export function githubDescription(): Description {
  // only the api.github.com file: the package's index loads every edition (400 MB)
  description ??= createRequire(import.meta.url)(
    '@octokit/openapi/generated/api.github.com.json',
  ) as Description;
  return description;
}

/** `#/components/x/y` → the object, recursively, so Ajv sees one self-contained schema. */
export function dereference(node: unknown, doc: Description, depth = 0): unknown {
  if (depth > 40 || node === null || typeof node !== 'object') return node;
  if (Array.isArray(node)) return node.map((item) => dereference(item, doc, depth + 1));
  const ref = (node as { $ref?: unknown }).$ref;
  if (typeof ref === 'string') {
    const [, section, name] = /^#\/components\/([^/]+)\/(.+)$/.exec(ref) ?? [];
    return dereference(doc.components[section as string]?.[name as string], doc, depth + 1);
  }
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [key, dereference(value, doc, depth + 1)]),
  );
}

export interface MatchedOperation {
  template: string;
  operation: Operation;
  pathParameters: Record<string, string>;
}

export function findOperation(doc: Description, method: string, path: string): MatchedOperation | undefined {
  for (const [template, operations] of Object.entries(doc.paths)) {
    const names: string[] = [];
    const pattern = new RegExp(
      `^${template.replace(/\{([^}]+)\}/g, (_match, name: string) => {
        names.push(name);
        return '([^/]+)';
      })}$`,
    );
    const match = pattern.exec(path);
    const operation = operations[method.toLowerCase()];
    if (match && operation)
      return {
        template,
        operation,
        pathParameters: Object.fromEntries(
          names.map((name, index) => [name, decodeURIComponent(match[index + 1] ?? '')]),
        ),
      };
  }
  return undefined;
}

const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
const compiled = new Map<unknown, ValidateFunction>();

function validator(schema: unknown): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema as object);
    compiled.set(schema, validate);
  }
  return validate;
}

/** Fields a schema does not declare, at its top level and in nested objects. */
function undeclared(schema: unknown, value: unknown, path: string): string[] {
  if (!schema || typeof schema !== 'object' || !value || typeof value !== 'object' || Array.isArray(value))
    return [];
  const properties = (schema as { properties?: Record<string, unknown> }).properties;
  if (!properties) return [];
  return Object.entries(value).flatMap(([key, nested]) =>
    key in properties ? undeclared(properties[key], nested, `${path}${key}.`) : [`${path}${key}`],
  );
}

/** The description's problems with one request; empty when it conforms. */
export function checkRequest(
  doc: Description,
  request: { method: string; path: string; query: URLSearchParams; body: unknown },
): { problems: string[]; matched?: MatchedOperation } {
  const matched = findOperation(doc, request.method, request.path);
  if (!matched) return { problems: [`no operation ${request.method} ${request.path} in the description`] };
  const problems: string[] = [];
  const parameters = (matched.operation.parameters ?? []).map(
    (parameter) => dereference(parameter, doc) as Parameter,
  );
  for (const name of request.query.keys()) {
    const declared = parameters.find((parameter) => parameter.in === 'query' && parameter.name === name);
    if (!declared)
      problems.push(`query parameter ${name} is not declared by ${matched.operation.operationId}`);
    else if (
      declared.schema &&
      !validator(declared.schema)(queryValue(declared.schema, request.query.get(name) ?? ''))
    )
      problems.push(`query parameter ${name}=${request.query.get(name)} does not match its schema`);
  }
  for (const parameter of parameters.filter((entry) => entry.in === 'query' && entry.required))
    if (!request.query.has(parameter.name))
      problems.push(`required query parameter ${parameter.name} is missing`);
  const bodySchema = matched.operation.requestBody?.content['application/json']?.schema;
  if (request.body !== undefined) {
    if (!bodySchema) problems.push(`${matched.operation.operationId} takes no JSON body`);
    else {
      const schema = dereference(bodySchema, doc);
      const validate = validator(schema);
      if (!validate(request.body))
        problems.push(
          ...(validate.errors ?? []).map(
            (error) => `body${error.instancePath} ${error.message ?? 'is invalid'}`,
          ),
        );
      problems.push(
        ...undeclared(schema, request.body, '').map((field) => `body field ${field} is not declared`),
      );
    }
  } else if (matched.operation.requestBody?.required)
    problems.push(`${matched.operation.operationId} needs a body`);
  return { problems, matched };
}

/** The description's problems with a response body the stand-in is about to send. */
export function checkResponse(
  doc: Description,
  matched: MatchedOperation,
  status: number,
  body: unknown,
): string[] {
  const schema = matched.operation.responses[String(status)]?.content?.['application/json']?.schema;
  if (!schema) return [`${matched.operation.operationId} has no ${status} JSON response`];
  const validate = validator(dereference(schema, doc));
  return validate(body)
    ? []
    : (validate.errors ?? [])
        .slice(0, 5)
        .map((error) => `response${error.instancePath} ${error.message ?? ''}`);
}

/** The published example of a response, e.g. `pull-request`. */
export function example(doc: Description, name: string): Record<string, unknown> {
  const entry = doc.components.examples?.[name] as { value?: Record<string, unknown> } | undefined;
  if (!entry?.value) throw new Error(`no example ${name} in the description`);
  return structuredClone(entry.value);
}

/** A query string value as its schema types it (`per_page=10` is an integer). */
function queryValue(schema: unknown, raw: string): unknown {
  const type = (schema as { type?: string }).type;
  return type === 'integer' || type === 'number' ? Number(raw) : type === 'boolean' ? raw === 'true' : raw;
}
