import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyReply, FastifyRequest, FastifySchemaValidationError, HookHandlerDoneFunction, RouteOptions } from 'fastify';
import { compiledOnce } from './compiled-once.js';
import { ApiError } from './errors.js';

/**
 * Schema keyword for a human explanation of a field's rule, shown in the error message when a value
 * breaks it (e.g. what a pattern means). It is an OpenAPI-legal `x-` extension.
 */
export const MESSAGE_KEYWORD = 'x-error-message';

function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    // Bodies are JSON and must carry the right types; query strings are text and get coerced.
    coerceTypes: coerce ? 'array' : false,
    // Unknown fields are an error (parameter_unknown), never silently dropped.
    removeAdditional: false,
    useDefaults: true,
    allErrors: false,
    verbose: true,
    strict: false,
  });
  addFormats.default(ajv);
  ajv.addKeyword({ keyword: MESSAGE_KEYWORD, schemaType: 'string' });
  return ajv;
}

/**
 * Fastify's validator builder (schemaController.compilersFactory.buildValidator): strict JSON bodies,
 * coerced query strings and path parameters. Fastify calls it once per plugin context with the
 * shared schemas visible there, so `$ref`s to them resolve.
 */
export function buildValidatorCompiler(externalSchemas: Record<string, unknown> = {}) {
  let ajvs: { body: Ajv; query: Ajv } | undefined;
  const once = compiledOnce(compiled, externalSchemas);
  return ({ schema, httpPart }: { schema: object; httpPart?: string }): ValidateFunction => {
    if (httpPart === 'body' && (schema as { format?: unknown }).format === 'binary') return acceptBytes;
    const part = httpPart === 'body' ? 'body' : 'query';
    return once(`${part}\n${JSON.stringify(schema)}`, () => {
      ajvs ??= ajvsWith(externalSchemas);
      return ajvs[part].compile(schema);
    });
  };
}

/**
 * Validators compiled in this process, by what they were compiled from (the shared schemas, then
 * the part and the schema): Fastify asks once per route and plugin context, for every app built, and
 * most ask for the same few schemas (every route without a query string gets NOTHING). Compiling
 * is what made building the app take seconds; a validator is a pure function of its schemas (its
 * `errors` are read right after each synchronous call), so one compiled serves them all.
 */
const compiled = new Map<string, Map<string, ValidateFunction>>();

function ajvsWith(externalSchemas: Record<string, unknown>): { body: Ajv; query: Ajv } {
  const ajvs = { body: makeAjv(false), query: makeAjv(true) };
  for (const schema of Object.values(externalSchemas)) {
    ajvs.body.addSchema(schema as object);
    ajvs.query.addSchema(schema as object);
  }
  return ajvs;
}

/**
 * The validator of a file body (`{type: 'string', format: 'binary'}` under a media type of the
 * route's `body.content`): its content type parser hands over the bytes, and any bytes will do —
 * what they hold is for the route to judge.
 */
const acceptBytes = (() => true) as unknown as ValidateFunction;

/** No fields at all: what a route takes in the parts of a request it declares no schema for. */
const NOTHING = { type: 'object', properties: {}, additionalProperties: false } as const;
const noBody = makeAjv(false).compile(NOTHING);

/** A bare POST to a route that takes a body is validated as `{}`, so the missing field gets named. */
function defaultToEmptyBody(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  if (request.body === undefined) request.body = {};
  done();
}

/**
 * A route that declares no body takes none: an empty object counts as no body (many clients send
 * `{}` on every POST), anything else is refused as the routes with a body schema refuse it. The
 * body is then dropped, so `{}` and a bare request are the same request (Idempotency-Key).
 */
function refuseBody(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  if (request.body !== undefined && !noBody(request.body)) {
    done(validationError(noBody.errors ?? [], 'body'));
    return;
  }
  request.body = undefined;
  done();
}

/**
 * The `/v1` rule that a request carries only what its route declares, applied to each route as it
 * is added (an `onRoute` hook), so a new route follows it without declaring anything:
 * - no querystring schema → an empty strict one: any query parameter is `parameter_unknown`;
 * - no body schema → no body (or `{}`), checked before validation on the methods that carry one;
 * - a body schema → a bare request is validated as `{}`.
 * GET routes get no body hook; like every route they validate their (usually empty) query object.
 */
export function acceptDeclaredInputsOnly(route: RouteOptions): void {
  if (!route.schema?.querystring) route.schema = { ...route.schema, querystring: NOTHING };
  const carriesBody = [route.method].flat().some((method) => method !== 'GET' && method !== 'HEAD');
  if (!carriesBody) return;
  const hook = route.schema.body ? defaultToEmptyBody : refuseBody;
  route.preValidation = [hook, ...[route.preValidation ?? []].flat()];
}

/** `/metadata/plan` → `metadata[plan]`, `/permissions/0` → `permissions[0]` (the form clients send). */
function paramName(instancePath: string, child?: string): string | undefined {
  const parts = instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (child !== undefined) parts.push(child);
  if (parts.length === 0) return undefined;
  return (
    parts[0] +
    parts
      .slice(1)
      .map((p) => `[${p}]`)
      .join('')
  );
}

/**
 * The values a schema allows when it is a list of them: an `enum`, a `const`, `null`, or a union of
 * those (a TypeBox `Type.Union` of `Type.Literal`s compiles to `anyOf` of `const`s). Otherwise undefined.
 */
function allowedValues(schema: unknown): unknown[] | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  const { const: only, enum: values, anyOf, type } = schema as { const?: unknown; enum?: unknown; anyOf?: unknown; type?: unknown };
  if (only !== undefined) return [only];
  if (type === 'null') return [null];
  if (Array.isArray(values)) return values;
  if (!Array.isArray(anyOf) || anyOf.length === 0) return undefined;
  const branches = anyOf.map(allowedValues);
  return branches.every((branch) => branch !== undefined) ? branches.flat() : undefined;
}

const oneOf = (values: unknown[]) => `must be one of ${values.map((v) => JSON.stringify(v)).join(', ')}`;

/**
 * The violation to report. Usually the first; but a value outside a union of literals fails every
 * branch, and Ajv (which stops at the first failing keyword) lists each branch's `const` error
 * before the union's own `anyOf` error. The first would name one allowed value as if it were the
 * only one, so the outermost such union is reported instead, with all of them.
 */
function reportedError(errors: ErrorObject[]): ErrorObject | undefined {
  for (let i = errors.length - 1; i >= 0; i--) {
    const error = errors[i] as ErrorObject;
    if (error.keyword === 'anyOf' && allowedValues(error.parentSchema) !== undefined) return error;
  }
  return errors[0];
}

/** Turns a schema violation (the one `reportedError` picks) into the API error a client can act on. */
export function validationError(errors: FastifySchemaValidationError[], context: string): ApiError {
  const error = reportedError(errors as ErrorObject[]);
  if (!error) return new ApiError('parameter_invalid');
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'additionalProperties') {
    const param = paramName(error.instancePath, String(params.additionalProperty));
    return new ApiError('parameter_unknown', { param });
  }
  if (error.keyword === 'required') {
    const param = paramName(error.instancePath, String(params.missingProperty));
    return new ApiError('parameter_missing', { param });
  }
  const param = paramName(error.instancePath);
  if (param === undefined && context === 'body') return new ApiError('body_invalid');
  const name = param ?? context;
  return new ApiError('parameter_invalid', { param: name, message: `Invalid value for ${name}: ${describe(error)}.` });
}

function describe(error: ErrorObject): string {
  const custom = (error.parentSchema as Record<string, unknown> | undefined)?.[MESSAGE_KEYWORD];
  if (typeof custom === 'string') return custom;
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'type':
      return `expected ${article(String(p.type))}`;
    case 'format':
      return p.format === 'email' ? 'must be a valid e-mail address' : `must be a valid ${String(p.format)}`;
    case 'minLength':
      return Number(p.limit) === 1 ? 'must not be empty' : `must be at least ${String(p.limit)} characters long`;
    case 'maxLength':
      return `must be at most ${String(p.limit)} characters long`;
    case 'minimum':
      return `must be at least ${String(p.limit)}`;
    case 'maximum':
      return `must be at most ${String(p.limit)}`;
    case 'enum':
      return oneOf(p.allowedValues as unknown[]);
    case 'anyOf': {
      const values = allowedValues(error.parentSchema);
      return values === undefined ? (error.message ?? 'is not valid') : oneOf(values);
    }
    case 'const':
      return `must be ${JSON.stringify(p.allowedValue)}`;
    case 'minItems':
      return Number(p.limit) === 1 ? 'must not be empty' : `must have at least ${String(p.limit)} items`;
    case 'maxItems':
      return `must have at most ${String(p.limit)} items`;
    case 'uniqueItems':
      return 'must not repeat a value';
    case 'maxProperties':
      return `must have at most ${String(p.limit)} keys`;
    case 'pattern':
      return 'has an invalid format';
    default:
      return error.message ?? 'is not valid';
  }
}

function article(type: string): string {
  const names: Record<string, string> = {
    string: 'a string',
    integer: 'a whole number',
    number: 'a number',
    boolean: 'true or false',
    object: 'an object',
    array: 'an array',
    null: 'null',
  };
  return type
    .split(',')
    .map((t) => names[t] ?? t)
    .join(' or ');
}
