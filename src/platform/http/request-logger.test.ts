import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { captureStream } from '../../../test/support/test-app.js';
import { lazyRequestLogger } from './request-logger.js';

const makeChild = (parent: FastifyBaseLogger) =>
  lazyRequestLogger.call(null as never, parent, { request_id: 'req_1' }, {}, undefined as never);

describe('request loggers made on first use', () => {
  it('makes no pino child for a request that does not log', () => {
    const parent = pino({ level: 'info' }, captureStream().stream);
    const child = vi.spyOn(parent, 'child');
    const log = makeChild(parent);
    expect(log.level).toBe('info');
    expect(child).not.toHaveBeenCalled();
  });

  it('logs through one child bound to the request id, with every argument form', async () => {
    const { lines, stream } = captureStream();
    const parent = pino({ level: 'debug' }, stream);
    const child = vi.spyOn(parent, 'child');
    const log = makeChild(parent);
    log.info({ code: 'x' }, 'first %s', 'line');
    log.debug('second');
    log.trace('below the level');
    await new Promise((resolve) => setImmediate(resolve));
    expect(child).toHaveBeenCalledTimes(1);
    expect(lines.map((line) => JSON.parse(line) as unknown)).toMatchObject([
      { level: 30, request_id: 'req_1', code: 'x', msg: 'first line' },
      { level: 20, request_id: 'req_1', msg: 'second' },
    ]);
    expect(lines).toHaveLength(2);
    expect((log.child({ step: 'inner' }) as pino.Logger).bindings()).toEqual({ request_id: 'req_1', step: 'inner' });
  });
});
