import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseEnv, runOwnproof, runOwnproofHere as ownproof } from '../../../test/support/cli-process.js';
import { completeWith, createSessionFor } from '../../../test/support/connect.js';
import { createTestDatabase, engines, type TestDatabase } from '../../../test/support/database.js';
import { snapshotDatabase } from '../../../test/support/db-snapshot.js';
import { captureStream, startTestApp, TEST_MASTER_KEY_BYTES, type TestApp } from '../../../test/support/test-app.js';
import { proveWith, testnetWallet } from '../../../test/support/verify.js';
import { connectionPurpose } from '../../connect/stored-connection.js';
import { sessionSecret } from '../../connect/session.service.js';
import { service } from '../../main/modules.js';
import { activeSigningKey } from '../../verify/claims/signing-key.service.js';
import { unixSeconds } from '../clock.js';
import { loadConfig } from '../config/config.js';
import type { AppContext } from '../context.js';
import { claimIdempotencyKey } from '../http/idempotency.service.js';
import type { Runtime } from '../runtime.js';
import { signingSecrets } from '../webhooks/webhook-endpoint.service.js';
import { encrypt } from './aes-gcm.js';
import { listDataKeys } from './data-key.repository.js';
import { legacyKeyId, MasterKeyMismatchError, unwrapDataKeys } from './data-key.service.js';
import { masterKeyId } from './master-key.js';

const OLD = TEST_MASTER_KEY_BYTES;
const NEW = randomBytes(32);
type MasterKeySettings = { MASTER_KEY: Buffer; MASTER_KEY_PREVIOUS?: Buffer };
/** The keys as an operator writes them (hex, and base64 for the previous one: both forms are taken). */
const keysEnv = (keys: MasterKeySettings): Record<string, string> => ({
  MASTER_KEY: keys.MASTER_KEY.toString('hex'),
  ...(keys.MASTER_KEY_PREVIOUS ? { MASTER_KEY_PREVIOUS: keys.MASTER_KEY_PREVIOUS.toString('base64') } : {}),
});
const env = (database: TestDatabase, keys: MasterKeySettings) => ({ ...databaseEnv(database.config), ...keysEnv(keys) });

/** What one tenant sealed, of every kind: where to read it back. */
interface Sealed {
  endpointIds: string[];
  idempotent: { key: string; body: unknown };
  sessionId: string;
  accountId: string;
}

/** Every secret of `sealed`, as the services of the context at hand read it. */
async function readEverySecret(ctx: AppContext, sealed: Sealed) {
  const now = unixSeconds(ctx.clock);
  const endpoints = await ctx.db.selectFrom('webhook_endpoints').selectAll().where('id', 'in', sealed.endpointIds).orderBy('seq').execute();
  // The saved response of the idempotent POST, as a retry of it would be answered.
  const saved = await ctx.db.selectFrom('idempotency_keys').selectAll().where('key', '=', sealed.idempotent.key).executeTakeFirstOrThrow();
  const scope = { clientId: saved.client_id, mode: saved.mode };
  const replay = await claimIdempotencyKey(ctx, scope, {
    key: saved.key,
    method: saved.method,
    path: saved.path,
    requestHash: saved.request_hash,
  });
  const session = await ctx.db.selectFrom('connect_sessions').selectAll().where('id', '=', sealed.sessionId).executeTakeFirstOrThrow();
  const account = await ctx.db.selectFrom('connect_accounts').selectAll().where('id', '=', sealed.accountId).executeTakeFirstOrThrow();
  return {
    webhookSecrets: endpoints.map((endpoint) => signingSecrets(ctx, endpoint, now)),
    idempotentReplay: replay.outcome === 'replay' ? replay.response.body : replay.outcome,
    clientSecret: sessionSecret(ctx, session),
    connection: ctx.secretBox.open(account.connection_sealed, connectionPurpose(account.id)),
    signingKey: (await activeSigningKey(ctx)).privateJwk,
  };
}

describe.each(engines())('ownproof keys rotate-master on %s', (engine) => {
  let database: TestDatabase;
  let dataDir: string;
  const logs = captureStream();
  const apps: TestApp[] = [];
  const runtimes: Runtime[] = [];
  /** A server (the real app, logging into `logs`) with these keys on the shared database. */
  const startApp = async (keys: MasterKeySettings) => {
    const t = await startTestApp(engine, { database, config: { ...keysEnv(keys), LOG_LEVEL: 'trace' }, logStream: logs.stream });
    apps.push(t);
    return t;
  };
  /** Another process of the service (worker, CLI, a restarted server): its context built as they build it, from the environment. */
  const startProcess = async (keys: MasterKeySettings) => {
    const runtime = await service.openRuntime(loadConfig({ ...env(database, keys), NODE_ENV: 'test', DATA_DIR: dataDir }));
    runtimes.push(runtime);
    return runtime.ctx;
  };

  beforeAll(async () => {
    database = await createTestDatabase(engine);
    dataDir = mkdtempSync(path.join(tmpdir(), 'ownproof-keys-'));
  });
  afterAll(async () => {
    for (const t of apps) await t.close();
    for (const runtime of runtimes) await runtime.close();
    await database.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('re-wraps every data key without rewriting a secret; old and dual-key processes keep working; the new key alone reads everything, the old one alone does not start', async () => {
    // Secrets of every kind, sealed through the API of a server holding the old master key.
    const old = await startApp({ MASTER_KEY: OLD });
    const client = await old.newClient('Rotation');
    const idempotent = { key: 'rotation-1', body: { url: 'http://127.0.0.1:4000/hook', enabled_events: ['*'] } };
    const created = await old.call(client.testKey, {
      method: 'POST',
      url: '/v1/webhook_endpoints',
      json: idempotent.body,
      headers: { 'idempotency-key': idempotent.key },
    });
    expect(created.statusCode).toBe(200);
    const legacy = (
      await old.call(client.testKey, {
        method: 'POST',
        url: '/v1/webhook_endpoints',
        json: { url: 'http://127.0.0.1:4000/legacy', enabled_events: ['*'] },
      })
    ).json();
    // This endpoint's secret as a database of an earlier version holds it: v1, directly under the master key.
    const purpose = `webhook_endpoints.secret:${legacy.id}`;
    const v1 = `v1.${masterKeyId(OLD)}.${encrypt(OLD, Buffer.from(legacy.secret), purpose)}`;
    await old.ctx.db.updateTable('webhook_endpoints').set({ secret: v1 }).where('id', '=', legacy.id).execute();
    const { session, holderId } = await createSessionFor(old, client.testKey);
    const [accountId] = await completeWith(old.ctx, session.client_secret, 'sandbox', { username: 'user_good', password: 'pass_good' });
    await proveWith(old.ctx, { clientId: client.clientId, mode: 'test' }, holderId, testnetWallet('p2wpkh'));
    const sealed: Sealed = {
      endpointIds: [created.json().id, legacy.id],
      idempotent,
      sessionId: session.id,
      accountId: accountId as string,
    };
    const expected = await readEverySecret(old.ctx, sealed);
    expect(expected.webhookSecrets).toEqual([[created.json().secret], [legacy.secret]]);
    expect(expected.idempotentReplay).toBe(created.body);
    expect(expected.clientSecret).toBe(session.client_secret);

    // A process already moved to the new configuration, both keys, before the rotation.
    const dual = await startProcess({ MASTER_KEY: NEW, MASTER_KEY_PREVIOUS: OLD });
    expect(await readEverySecret(dual, sealed)).toEqual(expected);

    const dataKeysBefore = await listDataKeys(database.handle.db);
    const unwrappedBefore = unwrapDataKeys(dataKeysBefore, { current: OLD });
    const secretsBefore = await snapshotDatabase(database.handle.db, ['data_keys']);
    const run = await runOwnproof(['keys', 'rotate-master'], {
      ...env(database, { MASTER_KEY: NEW, MASTER_KEY_PREVIOUS: OLD }),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'trace',
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(
      `Re-wrapped ${dataKeysBefore.length} data key(s) under master key ${masterKeyId(NEW)} (from ${masterKeyId(OLD)}); 0 already were.`,
    );
    expect(run.stdout).toContain(`Kept master key ${masterKeyId(OLD)} as data key ${legacyKeyId(masterKeyId(OLD))}`);

    // Only the wrappings changed: same data keys, now all under the new master key, and no sealed value rewritten.
    const dataKeysAfter = await listDataKeys(database.handle.db);
    expect(dataKeysAfter.map((k) => k.master_key_id)).toEqual(dataKeysAfter.map(() => masterKeyId(NEW)));
    expect(dataKeysAfter.map((k) => k.id)).toEqual([...dataKeysBefore.map((k) => k.id), legacyKeyId(masterKeyId(OLD))]);
    const unwrappedAfter = unwrapDataKeys(dataKeysAfter, { current: NEW });
    for (const [id, key] of unwrappedBefore) expect(unwrappedAfter.get(id)?.equals(key), id).toBe(true);
    expect(unwrappedAfter.get(legacyKeyId(masterKeyId(OLD)))?.equals(OLD)).toBe(true);
    expect(await snapshotDatabase(database.handle.db, ['data_keys'])).toEqual(secretsBefore);

    // Both running processes keep working: they read everything, and each reads what the other seals now.
    expect(await readEverySecret(old.ctx, sealed)).toEqual(expected);
    expect(await readEverySecret(dual, sealed)).toEqual(expected);
    const byOld = old.ctx.secretBox.seal('sealed by the old server after the rotation', 'test:cross');
    const byDual = dual.secretBox.seal('sealed by the dual-key process after the rotation', 'test:cross');
    expect(dual.secretBox.open(byOld, 'test:cross')).toBe('sealed by the old server after the rotation');
    expect(old.ctx.secretBox.open(byDual, 'test:cross')).toBe('sealed by the dual-key process after the rotation');
    const replayed = await old.call(client.testKey, {
      method: 'POST',
      url: '/v1/webhook_endpoints',
      json: idempotent.body,
      headers: { 'idempotency-key': idempotent.key },
    });
    expect(replayed.body).toBe(created.body);

    // Restarted with the new key alone: everything opens, the v1 value through the kept legacy key.
    const renewed = await startProcess({ MASTER_KEY: NEW });
    expect(await readEverySecret(renewed, sealed)).toEqual(expected);
    expect(renewed.secretBox.open(byOld, 'test:cross')).toBe('sealed by the old server after the rotation');

    // With the old key alone, neither a process nor a command starts, and they say why.
    await expect(startProcess({ MASTER_KEY: OLD })).rejects.toThrow(MasterKeyMismatchError);
    const command = await ownproof(['jobs', 'list'], env(database, { MASTER_KEY: OLD }));
    expect(command.code).toBe(1);
    expect(command.stderr).toMatch(
      new RegExp(
        `^ownproof: data key \\S+ is wrapped by master key ${masterKeyId(NEW)}, but this process holds master key ${masterKeyId(OLD)} \\(MASTER_KEY\\): .*rotate-master.*\\n$`,
      ),
    );

    // Running it again changes nothing.
    const again = await ownproof(['keys', 'rotate-master', '--json'], env(database, { MASTER_KEY: NEW, MASTER_KEY_PREVIOUS: OLD }));
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({
      master_key_id: masterKeyId(NEW),
      previous_master_key_id: masterKeyId(OLD),
      rewrapped: [],
      unchanged: dataKeysAfter.map((k) => k.id),
      legacy_key: null,
    });

    // No key and no secret in any output, log line or (in clear) in the database.
    const secrets = [
      ...[OLD, NEW, ...unwrappedAfter.values()].flatMap((key) => [key.toString('hex'), key.toString('base64'), key.toString('base64url')]),
      ...expected.webhookSecrets.flat(),
      expected.clientSecret,
      expected.signingKey.d as string,
      client.testKey,
      client.liveKey,
      'pass_good',
    ];
    const outputs = {
      cli: run.stdout + run.stderr + again.stdout + again.stderr + command.stdout + command.stderr,
      logs: logs.lines.join(''),
    };
    // One line per API request at least: the logger was listening.
    expect(logs.lines.length).toBeGreaterThanOrEqual(5);
    for (const [where, text] of Object.entries(outputs)) {
      for (const secret of secrets) expect(text.includes(secret), `${where} shows ${secret.slice(0, 8)}…`).toBe(false);
    }
    // The database holds them sealed only; except the session's client secret, which the events
    // keep in clear as part of the session object they carry (`session.completed`, as webhooks deliver it).
    const dump = [...(await snapshotDatabase(database.handle.db, [])).values()].join('\n');
    for (const secret of secrets.filter((s) => s !== expected.clientSecret))
      expect(dump.includes(secret), `the database shows ${secret.slice(0, 8)}…`).toBe(false);
  });

  it('rotate-data starts a new data key that running processes already hold; rotate-master refuses unclear key settings', async () => {
    const running = await startProcess({ MASTER_KEY: NEW });
    const rotated = await ownproof(['keys', 'rotate-data', '--json'], env(database, { MASTER_KEY: NEW }));
    expect(rotated.code, rotated.stderr).toBe(0);
    const { active, retired, next } = JSON.parse(rotated.stdout) as { active: string; retired: string; next: string };
    const keys = await listDataKeys(database.handle.db);
    expect(keys.find((k) => k.id === active)?.status).toBe('active');
    expect(keys.find((k) => k.id === retired)?.status).toBe('retired');
    expect(keys.find((k) => k.id === next)).toMatchObject({ status: 'pending', master_key_id: masterKeyId(NEW) });

    const started = await startProcess({ MASTER_KEY: NEW });
    const sealed = started.secretBox.seal('sealed with the new data key', 'test:data');
    expect(sealed.split('.')[1]).toBe(active);
    expect(running.secretBox.open(sealed, 'test:data')).toBe('sealed with the new data key');

    writeFileSync(path.join(dataDir, 'master.key'), `${NEW.toString('hex')}\n`);
    const { MASTER_KEY: _key, ...withoutKey } = env(database, { MASTER_KEY: NEW });
    const noKey = await ownproof(['keys', 'rotate-master'], { ...withoutKey, DATA_DIR: dataDir });
    expect([noKey.code, noKey.stderr]).toEqual([
      1,
      'ownproof: keys rotate-master takes the new master key from MASTER_KEY and the old one from MASTER_KEY_PREVIOUS: set both\n',
    ]);
    const same = await ownproof(['keys', 'rotate-master'], env(database, { MASTER_KEY: NEW, MASTER_KEY_PREVIOUS: NEW }));
    expect([same.code, same.stderr]).toEqual([
      1,
      'ownproof: MASTER_KEY_PREVIOUS is the same key as MASTER_KEY: MASTER_KEY must be the new key\n',
    ]);
  });
});
