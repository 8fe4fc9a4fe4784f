import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { characterProblem } from '../url-text.js';
import { ApiError } from './errors.js';

/**
 * What no string of a request may hold: NUL, which PostgreSQL `text` cannot store (SQLite can, so
 * the engines would disagree), and an unpaired UTF-16 surrogate (`"\ud800"` in JSON), which has no
 * UTF-8 form and would be stored as U+FFFD, read back as other text than was sent. A surrogate
 * pair is one character under the `u` flag, so characters beyond U+FFFF pass.
 */
const UNSTORABLE = /[\0\p{Cs}]/u;

/** A value met while walking an input, with the way back to its parameter name. */
interface Step {
  value: unknown;
  key: string | undefined;
  parent: Step | undefined;
}

/**
 * An object of parsed fields (JSON, a form, a query string, path parameters; the parsers give them
 * prototypes of their own), not a Buffer: a file body is bytes, what they hold is the route's call.
 */
function isFields(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !ArrayBuffer.isView(value);
}

/** `metadata[plan]`, `claim_ids[1]`: a parameter as clients write it (as validation errors name it). */
function nameOf(step: Step | undefined): string | undefined {
  const keys: string[] = [];
  for (let at = step; at?.key !== undefined; at = at.parent) keys.unshift(at.key);
  if (keys.length === 0) return undefined;
  return (
    keys[0] +
    keys
      .slice(1)
      .map((key) => `[${key}]`)
      .join('')
  );
}

/** A string value that cannot be stored; a bare string as the whole body is no JSON object at all. */
function refuseValue(step: Step, problem: string): ApiError {
  const param = nameOf(step);
  if (param === undefined) return new ApiError('body_invalid');
  return new ApiError('parameter_invalid', { param, message: `Invalid value for ${param}: ${problem}.` });
}

/** A key that cannot be stored, named by the object holding it (the key itself is what is broken). */
function refuseKey(container: Step, problem: string): ApiError {
  const param = nameOf(container);
  if (param === undefined) return new ApiError('parameter_invalid', { message: `Invalid parameter name: ${problem}.` });
  return new ApiError('parameter_invalid', { param, message: `Invalid value for ${param}: a key ${problem}.` });
}

/**
 * The refusal of the first string in `input` (values and object keys, at any depth) that cannot be
 * stored, naming its parameter. Walks without recursion: JSON.parse builds nesting of any depth
 * within the body limit, and the walk must not overflow the stack on it.
 */
function unstorableTextIn(input: unknown): ApiError | undefined {
  const pending: Step[] = [{ value: input, key: undefined, parent: undefined }];
  for (let step = pending.pop(); step !== undefined; step = pending.pop()) {
    const { value } = step;
    if (typeof value === 'string') {
      const problem = characterProblem(value, UNSTORABLE);
      if (problem !== undefined) return refuseValue(step, problem);
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) pending.push({ value: value[i], key: String(i), parent: step });
    } else if (isFields(value)) {
      const keys = Object.keys(value);
      for (const key of keys) {
        const problem = characterProblem(key, UNSTORABLE);
        if (problem !== undefined) return refuseKey(step, problem);
      }
      for (let i = keys.length - 1; i >= 0; i--) pending.push({ value: value[keys[i] as string], key: keys[i], parent: step });
    }
  }
  return undefined;
}

/**
 * The rule that every string a request carries is text any store holds as sent: its path
 * parameters, its query parameters and its body (JSON or form; a file is bytes), values and keys.
 * It is a hook on the root of the app, so it holds for every route, API, public or page, without a
 * route declaring anything; it runs before validation, so a schema never sees such a string. One
 * that holds a NUL or an unpaired surrogate is 400 `parameter_invalid` naming the parameter
 * (`param: "id"` for a path id: such an id can name nothing, like one over MAX_ID_LENGTH). A URL
 * that matches no route keeps its 404.
 */
export function refuseUnstorableText(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  if (request.is404) return done();
  const refused = unstorableTextIn(request.params) ?? unstorableTextIn(request.query) ?? unstorableTextIn(request.body);
  done(refused);
}
