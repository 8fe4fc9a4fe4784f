import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { engines } from '../../../test/support/database.js';
import { captureStream, startTestApp } from '../../../test/support/test-app.js';
import { createAccountHolder } from '../../connect/account-holder.service.js';
import { createSession } from '../../connect/session.service.js';
import { jsonColumn, StoredJsonError } from './json-column.js';

const tags = jsonColumn('things', 'tags', Type.Array(Type.String()));

describe('a stored JSON column', () => {
  it('decodes text that fits its schema', () => {
    expect(tags.decode('["a","b"]', 'thg_1')).toEqual(['a', 'b']);
  });

  it('refuses text that is not JSON, naming the table, the column and the row', () => {
    const read = () => tags.decode('["a"', 'thg_2');
    expect(read).toThrow(StoredJsonError);
    expect(read).toThrow('things.tags of row thg_2 does not hold what it should: it is not JSON');
  });

  it('refuses JSON that does not fit the schema, naming the field', () => {
    let thrown: unknown;
    try {
      tags.decode('["a",2]', 'thg_3');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(StoredJsonError);
    expect(thrown).toMatchObject({ table: 'things', column: 'tags', rowId: 'thg_3' });
    expect((thrown as Error).message).toMatch(/^things\.tags of row thg_3 does not hold what it should: \/1 /);
  });

  it('refuses to encode a value it could not read back', () => {
    expect(tags.encode(['a'])).toBe('["a"]');
    expect(() => tags.encode([1] as never)).toThrow(/things\.tags/);
  });
});

describe.each(engines())('a stored row that does not fit its schema, on %s', (engine) => {
  it('is a logged 500, never a silent cast', async () => {
    const log = captureStream();
    const t = await startTestApp(engine, { config: { LOG_LEVEL: 'error' }, logStream: log.stream });
    try {
      const client = await t.newClient();
      const created = await t.call(client.testKey, {
        method: 'POST',
        url: '/v1/connect/account_holders',
        json: { email: 'ada@example.com' },
      });
      const id = created.json().id as string;
      await t.ctx.db.updateTable('account_holders').set({ metadata: '{"plan":1}' }).where('id', '=', id).execute();
      const res = await t.call(client.testKey, { method: 'GET', url: `/v1/connect/account_holders/${id}` });
      expect(res.statusCode).toBe(500);
      expect(res.json().error).toMatchObject({ type: 'api_error' });
      expect(res.body).not.toContain('account_holders.metadata');
      expect(log.lines.join('')).toContain(`account_holders.metadata of row ${id} does not hold what it should: /plan`);
    } finally {
      await t.close();
    }
  });

  it('is refused where it is written, and nothing is stored', async () => {
    const t = await startTestApp(engine);
    try {
      const client = await t.newClient();
      const scope = { clientId: client.clientId, mode: 'test' } as const;
      const holder = await createAccountHolder(t.ctx, scope, { email: 'ada@example.com' });
      const write = createSession(t.ctx, scope, { account_holder: holder.id, permissions: ['balances', 'everything'] as never });
      await expect(write).rejects.toThrow(TypeError);
      await expect(write).rejects.toThrow('a value for connect_sessions.permissions that does not fit its schema: /1 ');
      expect(await t.ctx.db.selectFrom('connect_sessions').select('id').execute()).toEqual([]);
    } finally {
      await t.close();
    }
  });
});
