import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, databaseEnv, startNodeProcess, type LongRunningProcess } from '../../../test/support/cli-process.js';
import { engines } from '../../../test/support/database.js';
import { startTestApp, TEST_MASTER_KEY, type TestApp } from '../../../test/support/test-app.js';
import { recordEvent } from '../events/event.service.js';
import { eventually } from '../../../test/support/eventually.js';
import { TestReceiver } from '../../../test/support/webhooks.js';

describe.each(engines())('webhook delivery across a worker crash on %s', (engine) => {
  let t: TestApp;
  let dataDir: string;
  const workers: LongRunningProcess[] = [];

  beforeAll(async () => {
    t = await startTestApp(engine);
    dataDir = mkdtempSync(path.join(tmpdir(), 'ownproof-webhook-crash-'));
  });
  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.stop('SIGKILL')));
    await t.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** `ownproof worker` as a real child process on the test database. */
  function startWorker(): LongRunningProcess {
    const worker = startNodeProcess([BIN, 'worker'], {
      ...databaseEnv(t.database.config),
      MASTER_KEY: TEST_MASTER_KEY,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'error',
      WORKER_CONCURRENCY: '4',
    });
    workers.push(worker);
    return worker;
  }

  it('delivers an event whose worker was killed with SIGKILL mid-request, once another worker takes the job', async () => {
    const receiver = await TestReceiver.start((index) => (index === 0 ? { stall: true } : { status: 200 }));
    try {
      const client = await t.newClient();
      const created = await t.call(client.testKey, {
        method: 'POST',
        url: '/v1/webhook_endpoints',
        json: { url: receiver.url, enabled_events: ['*'] },
      });
      const { id: endpointId, secret } = created.json();
      const event = await recordEvent(t.ctx, { clientId: client.clientId, mode: 'test' }, 'account_holder.created', {
        id: 'ah_crash',
        object: 'account_holder',
      });

      const first = startWorker();
      await receiver.waitFor(1, 30_000); // the first worker's request hangs in the receiver
      await first.stop('SIGKILL');

      // The killed worker's lease would run out after 30 s; let it run out now instead of waiting.
      const expired = await t.ctx.db
        .updateTable('jobs')
        .set({ locked_until: 0 })
        .where('type', '=', 'webhooks.deliver')
        .where('status', '=', 'running')
        .executeTakeFirst();
      expect(Number(expired.numUpdatedRows)).toBe(1);

      const second = startWorker();
      const [hung, delivered] = await receiver.waitFor(2, 30_000);
      expect(hung!.headers['webhook-id']).toBe(event.id);
      expect(delivered!.headers['webhook-id']).toBe(event.id); // receivers drop the duplicate by this id
      expect(delivered!.body).toBe(hung!.body);
      expect(new Webhook(secret).verify(delivered!.body, delivered!.headers as Record<string, string>)).toMatchObject({ id: event.id });

      const attempts = await eventually(async () => {
        const res = await t.call(client.testKey, { method: 'GET', url: `/v1/webhook_endpoints/${endpointId}/deliveries` });
        const data = res.json().data as { attempt: number; status: string }[];
        return data.length > 0 ? data : undefined;
      }, 15_000);
      // The killed attempt was sent but never recorded; the one that succeeded counts it.
      expect(attempts).toEqual([expect.objectContaining({ attempt: 2, status: 'succeeded', response_status: 200 })]);
      const job = await eventually(async () => {
        const row = await t.ctx.db.selectFrom('jobs').selectAll().where('type', '=', 'webhooks.deliver').executeTakeFirst();
        return row?.status === 'succeeded' ? row : undefined;
      }, 15_000);
      expect(job.attempts).toBe(2);

      expect(await second.stop('SIGTERM')).toBe(0);
      expect(receiver.received).toHaveLength(2);
    } finally {
      await receiver.close();
    }
  });
});
