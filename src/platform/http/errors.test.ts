import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ApiError, ERROR_TABLE, errorBody } from './errors.js';

const documented = readFileSync(new URL('../../../docs/errors.md', import.meta.url), 'utf8')
  .split('\n')
  .map((line) => /^\| `([a-z_]+)` \| (\d{3}) \| ([a-z_]+) \|/.exec(line))
  .filter((match): match is RegExpExecArray => match !== null)
  .map(([, code, status, type]) => ({ code: code as string, status: Number(status), type: type as string }));

describe('the error table', () => {
  it('documents every code in docs/errors.md exactly once, with the status and type it is served with', () => {
    const codes = documented.map((row) => row.code);
    expect(new Set(codes).size).toBe(codes.length);
    expect([...codes].sort()).toEqual(Object.keys(ERROR_TABLE).sort());
    for (const row of documented) {
      const definition = ERROR_TABLE[row.code as keyof typeof ERROR_TABLE];
      expect({ status: definition.status, type: definition.type }, row.code).toEqual({ status: row.status, type: row.type });
    }
  });

  it('maps each type to the statuses DESIGN.md gives it', () => {
    const allowed: Record<string, number[]> = {
      invalid_request_error: [400, 404, 405, 408, 409, 413, 415, 422, 431],
      authentication_error: [401],
      permission_error: [403],
      rate_limit_error: [429],
      api_error: [500, 503],
    };
    for (const [code, definition] of Object.entries(ERROR_TABLE)) {
      expect(allowed[definition.type], code).toContain(definition.status);
    }
  });

  it('fills the parameter into the default message and omits param when there is none', () => {
    const withParam = errorBody(new ApiError('parameter_missing', { param: 'email' }), 'req_1');
    expect(withParam.error).toEqual({
      type: 'invalid_request_error',
      code: 'parameter_missing',
      message: 'Missing required parameter: email.',
      param: 'email',
      request_id: 'req_1',
    });
    expect('param' in errorBody(new ApiError('api_error'), 'req_2').error).toBe(false);
  });
});
