import { isObject } from '../json-fields.js';
import type { Finding } from '../rule.js';
import type { ServiceModel, ServiceShape } from './service-shape.js';

/**
 * What an AWS SDK checks before it sends a request, as botocore's `ParamValidator` does over the service
 * model: required members, members the shape does not have, each value's type, and the model's `min`
 * (a number's least value, a string's or a list's least length) and tagged unions. Nothing else: enums,
 * `max` and patterns are the service's to check (`serviceConstraintFindings`).
 */
export function parameterFindings(model: ServiceModel, shapeName: string, input: unknown): Finding[] {
  const findings: Finding[] = [];
  validate(model, shapeName, input, '', findings);
  return findings;
}

const describe = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));
/** botocore's names: members joined by dots from the input's top, which is called `input`. */
const child = (path: string, name: string): string => (path ? `${path}.${name}` : name);
const named = (path: string) => path || 'input';

function validate(
  model: ServiceModel,
  shapeName: string,
  value: unknown,
  path: string,
  out: Finding[],
): void {
  const shape = model.shapes[shapeName];
  if (!shape) return;
  const invalidType = (expected: string): void => {
    out.push({
      field: named(path),
      message: `Invalid type for parameter ${named(path)}, value: ${describe(value)}, valid types: ${expected}`,
    });
  };
  const belowMin = (actual: number, what: 'value' | 'length'): void => {
    if (shape.min === undefined || actual >= shape.min) return;
    out.push({
      field: named(path),
      message: `Invalid ${what === 'value' ? 'value' : 'length'} for parameter ${named(path)}, value: ${what === 'value' ? actual : describe(value)}, valid min ${what}: ${shape.min}`,
    });
  };
  switch (shape.type) {
    case 'structure':
      if (!isObject(value)) {
        invalidType('dict');
        return;
      }
      validateStructure(model, shape, value, path, out);
      return;
    case 'list':
      if (!Array.isArray(value)) {
        invalidType('list, tuple');
        return;
      }
      belowMin(value.length, 'length');
      value.forEach((item: unknown, index) => {
        if (shape.member) validate(model, shape.member, item, `${path}[${index}]`, out);
      });
      return;
    case 'map':
      if (!isObject(value)) {
        invalidType('dict');
        return;
      }
      for (const [key, item] of Object.entries(value)) {
        if (shape.key) validate(model, shape.key, key, `${path} (key: ${key})`, out);
        if (shape.value) validate(model, shape.value, item, child(path, key), out);
      }
      return;
    case 'string':
      if (typeof value !== 'string') {
        invalidType('str');
        return;
      }
      belowMin([...value].length, 'length');
      return;
    case 'integer':
    case 'long':
      if (typeof value !== 'number' || !Number.isInteger(value)) {
        invalidType('int');
        return;
      }
      belowMin(value, 'value');
      return;
    case 'double':
    case 'float':
      if (typeof value !== 'number') {
        invalidType('float, Decimal, int');
        return;
      }
      belowMin(value, 'value');
      return;
    case 'boolean':
      if (typeof value !== 'boolean') {
        invalidType('bool');
        return;
      }
      return;
    case 'timestamp':
      if (typeof value === 'number' || (typeof value === 'string' && !Number.isNaN(Date.parse(value))))
        return;
      invalidType('datetime, timestamp-string');
      return;
    case 'blob':
      if (typeof value !== 'string') {
        invalidType('bytes, bytearray, file-like object');
        return;
      }
      return;
  }
}

function validateStructure(
  model: ServiceModel,
  shape: ServiceShape,
  value: Readonly<Record<string, unknown>>,
  path: string,
  out: Finding[],
): void {
  const members = shape.members ?? {};
  if (shape.union) {
    const given = Object.keys(value).length;
    if (given !== 1)
      out.push({
        field: named(path),
        message: `Invalid number of parameters set for tagged union structure ${named(path)}. Can only set one of the following keys: ${Object.keys(members).join(', ')}.`,
      });
  }
  for (const required of shape.required ?? [])
    if (!(required in value))
      out.push({
        field: child(path, required),
        message: `Missing required parameter in ${named(path)}: "${required}"`,
      });
  for (const [name, item] of Object.entries(value)) {
    const member = members[name];
    if (member === undefined) {
      out.push({
        field: child(path, name),
        message: `Unknown parameter in ${named(path)}: "${name}", must be one of: ${Object.keys(members).join(', ')}`,
      });
      continue;
    }
    validate(model, member, item, child(path, name), out);
  }
}

const patterns = new Map<string, RegExp | null>();

/**
 * A model's pattern as a regular expression: in Unicode mode, so a surrogate pair (`\uD800\uDC00`) is the
 * code point it spells, as in the model's Java-style patterns; one JavaScript cannot read is not judged.
 */
function patternOf(source: string): RegExp | null {
  if (!patterns.has(source)) {
    try {
      patterns.set(source, new RegExp(source, 'u'));
    } catch {
      patterns.set(source, null);
    }
  }
  return patterns.get(source) ?? null;
}

/**
 * What the service checks of a request's values against its model once it has it: enums, `max` (a
 * number's greatest value, a string's or a list's greatest length) and patterns (not implicitly
 * anchored, as Smithy defines them). Answered as `ValidationException: 1 validation error detected: …`.
 */
export function serviceConstraintFindings(model: ServiceModel, shapeName: string, input: unknown): Finding[] {
  const findings: Finding[] = [];
  constrain(model, shapeName, input, '', findings);
  return findings;
}

function constrain(
  model: ServiceModel,
  shapeName: string,
  value: unknown,
  path: string,
  out: Finding[],
): void {
  const shape = model.shapes[shapeName];
  if (!shape || value === undefined || value === null) return;
  const fail = (constraint: string): void => {
    out.push({
      field: named(path),
      message: `1 validation error detected: Value '${describe(value)}' at '${named(path)}' failed to satisfy constraint: ${constraint}`,
    });
  };
  switch (shape.type) {
    case 'structure':
      if (!isObject(value)) return;
      for (const [name, item] of Object.entries(value)) {
        const member = shape.members?.[name];
        if (member) constrain(model, member, item, child(path, name), out);
      }
      return;
    case 'list':
      if (!Array.isArray(value)) return;
      if (shape.max !== undefined && value.length > shape.max)
        fail(`Member must have length less than or equal to ${shape.max}`);
      value.forEach((item: unknown, index) => {
        if (shape.member) constrain(model, shape.member, item, `${path}[${index}]`, out);
      });
      return;
    case 'map':
      if (!isObject(value)) return;
      for (const [key, item] of Object.entries(value))
        if (shape.value) constrain(model, shape.value, item, child(path, key), out);
      return;
    case 'string': {
      if (typeof value !== 'string') return;
      if (shape.enum && !shape.enum.includes(value)) {
        fail(`Member must satisfy enum value set: [${shape.enum.join(', ')}]`);
        return;
      }
      if (shape.max !== undefined && [...value].length > shape.max) {
        fail(`Member must have length less than or equal to ${shape.max}`);
        return;
      }
      const pattern = shape.pattern === undefined ? null : patternOf(shape.pattern);
      if (pattern && !pattern.test(value))
        fail(`Member must satisfy regular expression pattern: ${shape.pattern}`);
      return;
    }
    case 'integer':
    case 'long':
    case 'double':
    case 'float':
      if (typeof value === 'number' && shape.max !== undefined && value > shape.max)
        fail(`Member must have value less than or equal to ${shape.max}`);
      return;
    default:
      return;
  }
}
