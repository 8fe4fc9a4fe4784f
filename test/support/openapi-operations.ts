import { ID_PREFIX_KEYWORD } from '../../src/platform/http/schemas.js';

/**
 * The operations of the generated OpenAPI document, as the route-security suite and the OpenAPI
 * checks walk them: so a route added later is covered without a line of test code.
 */

export type JsonSchema = Record<string, unknown>;

export interface OpenApiParameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  description?: string;
  schema?: JsonSchema;
}

export interface OpenApiResponse {
  description?: string;
  content?: Record<string, { schema?: JsonSchema }>;
  headers?: Record<string, unknown>;
}

export interface OpenApiOperation {
  operationId?: string;
  security?: unknown[];
  parameters?: OpenApiParameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, OpenApiResponse>;
}

export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Record<string, JsonSchema> };
}

/** Methods Fastify reads a request body for (GET, HEAD and TRACE bodies are ignored). */
export const BODY_METHODS: readonly string[] = ['POST', 'PUT', 'PATCH', 'DELETE'];

export interface ApiOperation {
  method: string;
  /** The OpenAPI path, `/v1/connect/accounts/{id}`. */
  path: string;
  /** `GET /v1/connect/accounts/{id}`: how failures name it. */
  name: string;
  authenticated: boolean;
  pathParams: { name: string; prefix: string | undefined }[];
  queryParams: OpenApiParameter[];
  /** The JSON request body's schema, when the operation declares one. */
  bodySchema: JsonSchema | undefined;
  declared: Record<string, OpenApiResponse>;
}

/** Every operation of the document, in document order. */
export function readOperations(document: OpenApiDocument): ApiOperation[] {
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => {
      const parameters = op.parameters ?? [];
      const prefix = (p: OpenApiParameter) => p.schema?.[ID_PREFIX_KEYWORD];
      return {
        method: method.toUpperCase(),
        path,
        name: `${method.toUpperCase()} ${path}`,
        authenticated: op.security === undefined || op.security.length > 0,
        pathParams: parameters
          .filter((p) => p.in === 'path')
          .map((p) => ({ name: p.name, prefix: typeof prefix(p) === 'string' ? (prefix(p) as string) : undefined })),
        queryParams: parameters.filter((p) => p.in === 'query'),
        bodySchema: op.requestBody?.content['application/json']?.schema,
        declared: op.responses,
      };
    }),
  );
}

/** The operation's URL with each path parameter replaced by `ids[name]` (or by `fallback`). */
export function urlOf(
  op: ApiOperation,
  ids: Record<string, string> | ((param: ApiOperation['pathParams'][number]) => string | undefined),
): string {
  return op.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const param = op.pathParams.find((p) => p.name === name) ?? { name, prefix: undefined };
    const value = typeof ids === 'function' ? ids(param) : ids[name];
    if (value === undefined) throw new Error(`${op.name}: no value for path parameter {${name}}`);
    return encodeURIComponent(value);
  });
}

/** Thrown when a schema gives the generator no way to make a valid value. */
export class NeedsExample extends Error {}

/**
 * The smallest body the schema accepts, for calls that must get past validation so the answer comes
 * from the handler: required properties only, the first `examples` value, `const` or `enum` value
 * where there is one, `minItems` items and `minProperties` properties, formats filled with a plausible value. A rule the generator
 * cannot satisfy alone (a `pattern`) needs `examples` in the schema: it throws NeedsExample saying so.
 */
function minimalValue(document: OpenApiDocument, schema: JsonSchema, at = 'body'): unknown {
  const resolved = resolve(document, schema);
  const examples = resolved.examples;
  if (Array.isArray(examples) && examples.length > 0) return structuredClone(examples[0]);
  if ('example' in resolved) return structuredClone(resolved.example);
  if ('const' in resolved) return resolved.const;
  if (Array.isArray(resolved.enum) && resolved.enum.length > 0) return resolved.enum[0];
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const options = resolved[keyword] as JsonSchema[] | undefined;
    if (options) {
      const option = options.find((o) => resolve(document, o).type !== 'null') ?? options[0];
      if (option) return minimalValue(document, option, at);
    }
  }
  if (Array.isArray(resolved.allOf)) {
    return Object.assign({}, ...(resolved.allOf as JsonSchema[]).map((part) => minimalValue(document, part, at)));
  }
  const type = Array.isArray(resolved.type) ? (resolved.type as string[]).find((t) => t !== 'null') : resolved.type;
  switch (type) {
    case 'object': {
      const properties = (resolved.properties ?? {}) as Record<string, JsonSchema>;
      const required = [...((resolved.required ?? []) as string[])];
      // minProperties beyond the required ones: the first optional properties, in order.
      const optional = Object.keys(properties).filter((name) => !required.includes(name));
      while (typeof resolved.minProperties === 'number' && required.length < resolved.minProperties && optional.length > 0) {
        required.push(optional.shift() as string);
      }
      return Object.fromEntries(
        required.map((name) => {
          const property = properties[name];
          if (!property) throw new NeedsExample(`${at}.${name} is required but has no schema`);
          return [name, minimalValue(document, property, `${at}.${name}`)];
        }),
      );
    }
    case 'array': {
      const count = typeof resolved.minItems === 'number' ? resolved.minItems : 0;
      const items = (resolved.items ?? {}) as JsonSchema;
      const values = Array.from({ length: count }, (_, i) => nthValue(document, items, i, `${at}[${i}]`));
      if (resolved.uniqueItems === true && new Set(values.map((v) => JSON.stringify(v))).size < values.length) {
        throw new NeedsExample(`${at} needs ${count} distinct items`);
      }
      return values;
    }
    case 'string':
      return stringFor(resolved, at);
    case 'integer':
    case 'number':
      return numberFor(resolved);
    case 'boolean':
      return false;
    case 'null':
      return null;
    default:
      throw new NeedsExample(`${at} has no type`);
  }
}

/** The i-th distinct value a schema allows (for arrays of unique items): enum values and alternatives in turn. */
function nthValue(document: OpenApiDocument, schema: JsonSchema, i: number, at: string): unknown {
  const resolved = resolve(document, schema);
  if (Array.isArray(resolved.enum) && resolved.enum.length > i) return resolved.enum[i];
  const options = (resolved.anyOf ?? resolved.oneOf) as JsonSchema[] | undefined;
  if (options && options.length > i) return minimalValue(document, options[i] as JsonSchema, at);
  return minimalValue(document, schema, at);
}

function stringFor(schema: JsonSchema, at: string): string {
  const byFormat: Record<string, string> = {
    email: 'someone@example.com',
    uri: 'https://example.com/',
    url: 'https://example.com/',
    'date-time': '2026-01-01T00:00:00Z',
    date: '2026-01-01',
    uuid: '00000000-0000-4000-8000-000000000000',
  };
  if (typeof schema.format === 'string') {
    const value = byFormat[schema.format];
    if (value === undefined) throw new NeedsExample(`${at} has format ${schema.format}`);
    return value;
  }
  if (schema.pattern !== undefined) throw new NeedsExample(`${at} must match ${String(schema.pattern)}`);
  const length = Math.max(1, typeof schema.minLength === 'number' ? schema.minLength : 1);
  return 'x'.repeat(length);
}

function numberFor(schema: JsonSchema): number {
  if (typeof schema.minimum === 'number') return schema.minimum;
  if (typeof schema.exclusiveMinimum === 'number') return schema.exclusiveMinimum + 1;
  if (typeof schema.maximum === 'number' && schema.maximum < 0) return schema.maximum;
  return 0;
}

function resolve(document: OpenApiDocument, schema: JsonSchema): JsonSchema {
  let current = schema;
  for (let depth = 0; typeof current.$ref === 'string'; depth++) {
    const name = /^#\/components\/schemas\/(.+)$/.exec(current.$ref as string)?.[1];
    const target = name === undefined ? undefined : document.components.schemas[name];
    if (!target || depth > 10) throw new Error(`cannot resolve ${String(current.$ref)}`);
    current = target;
  }
  return current;
}

/**
 * The operation's minimal valid JSON body (see minimalValue), or undefined when it declares none.
 * The error message of NeedsExample names the operation and what to add.
 */
export function minimalBody(document: OpenApiDocument, op: ApiOperation): unknown {
  if (!op.bodySchema) return undefined;
  try {
    return minimalValue(document, op.bodySchema);
  } catch (error) {
    if (error instanceof NeedsExample) {
      throw new Error(`${op.name}: cannot make a valid request body (${error.message}); add \`examples\` to that schema`);
    }
    throw error;
  }
}
