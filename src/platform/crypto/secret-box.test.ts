import { randomBytes } from 'node:crypto';
import type { KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock } from '../../../test/support/clock.js';
import { createTestDatabase, engines, type TestDatabase } from '../../../test/support/database.js';
import { eventually } from '../../../test/support/eventually.js';
import { unixSeconds } from '../clock.js';
import { openDatabase } from '../db/database.js';
import { listDataKeys } from './data-key.repository.js';
import { MasterKeyMismatchError, rotateDataKey } from './data-key.service.js';
import { masterKeyId } from './master-key.js';
import { openSecretBox, UnknownDataKeyError, type SecretBox } from './secret-box.js';

const MASTER = Buffer.alloc(32, 7);

/**
 * Sealed by the secret box before envelope encryption (commit a1b13f4, `createSecretBox` under the
 * master key 07…07): what databases of earlier versions hold.
 */
const V1_SEALED = 'v1.S7Bvjk46.leaS-nXVdR6baqp3.qalrcgQufqVMTLUVvhXs2AgI7XsnVYV601lCrn-BW8JvZ9WjDwBp_o0uUtkHBtDvk5GnEW7I1g';
const V1_PURPOSE = 'webhook_endpoints.secret:we_legacy';
const V1_PLAINTEXT = 'whsec_sealed-before-envelope-encryption';

/** `sealed` with one character of part `part` (0 version, 1 key id, 2 iv, 3 ciphertext+tag) changed, at `at` (negative: from the end). */
function tamper(sealed: string, part: number, at: number): string {
  const parts = sealed.split('.');
  const text = parts[part] as string;
  const i = at < 0 ? text.length + at : at;
  parts[part] = text.slice(0, i) + (text[i] === 'A' ? 'B' : 'A') + text.slice(i + 1);
  return parts.join('.');
}

/**
 * Holds back the result of the next query once armed: `read` resolves when the database has
 * answered it, and the caller sees the rows only after `release()`. Counts the queries that ran.
 */
function queryGate() {
  let armed: { reached: () => void; held: Promise<void> } | undefined;
  let release = () => {};
  const gate = {
    queries: 0,
    arm(): Promise<void> {
      return new Promise((reached) => {
        armed = { reached, held: new Promise((resolve) => (release = resolve)) };
      });
    },
    release: () => release(),
    plugin: {
      transformQuery: ({ node }) => node,
      async transformResult({ result }) {
        gate.queries += 1;
        const hold = armed;
        armed = undefined;
        if (hold) {
          hold.reached();
          await hold.held;
        }
        return result;
      },
    } satisfies KyselyPlugin,
  };
  return gate;
}

describe.each(engines())('secret box on %s', (engine) => {
  let database: TestDatabase;
  let box: SecretBox;
  const clock = new TestClock();
  const open = () => openSecretBox(database.handle.db, { current: MASTER }, clock);

  beforeAll(async () => {
    database = await createTestDatabase(engine);
    box = await open();
  });
  afterAll(() => database.destroy());

  it('seals under the active data key (v2) and opens what it sealed, in this process and another', async () => {
    const keys = await listDataKeys(database.handle.db);
    expect(keys.map((k) => [k.status, k.master_key_id])).toEqual([
      ['active', masterKeyId(MASTER)],
      ['pending', masterKeyId(MASTER)],
    ]);
    const active = keys[0]?.id as string;
    expect(active).toMatch(/^dk_[0-9A-Za-z]{22}$/);

    for (const plaintext of ['whsec_abc', '', 'ключ 🔑 {"d":"x"}']) {
      const sealed = box.seal(plaintext, 'test.column:row_1');
      expect(sealed).toMatch(new RegExp(`^v2\\.${active}\\.[\\w-]{16}\\.[\\w-]+$`));
      expect(box.open(sealed, 'test.column:row_1')).toBe(plaintext);
      expect((await open()).open(sealed, 'test.column:row_1')).toBe(plaintext);
    }
    // A fresh IV every time: equal secrets do not look equal at rest.
    expect(box.seal('same', 'p')).not.toBe(box.seal('same', 'p'));
  });

  it('still opens v1 values, sealed directly under the master key before envelope encryption', () => {
    expect(box.open(V1_SEALED, V1_PURPOSE)).toBe(V1_PLAINTEXT);
    expect(() => box.open(V1_SEALED, 'webhook_endpoints.secret:we_other')).toThrow(/does not open/);
    // Sealed under a master key this process holds in no form.
    expect(() => box.open(V1_SEALED.replace('S7Bvjk46', 'AAAAAAAA'), V1_PURPOSE)).toThrow(UnknownDataKeyError);
    expect(() => box.open(V1_SEALED.replace('S7Bvjk46', 'AAAAAAAA'), V1_PURPOSE)).toThrow(/master key AAAAAAAA/);
  });

  it('binds the purpose: a value moved to another column or row does not open', () => {
    const sealed = box.seal('whsec_abc', 'webhook_endpoints.secret:we_1');
    for (const other of ['webhook_endpoints.secret:we_2', 'webhook_endpoints.previous_secret:we_1', '']) {
      expect(() => box.open(sealed, other)).toThrow('sealed secret does not open: it was altered, or belongs to another purpose');
    }
  });

  it('refuses a tampered value: any changed IV, ciphertext or tag byte, another data key, a cut tag, another shape', async () => {
    const sealed = box.seal('whsec_abc', 'p');
    const pending = (await listDataKeys(database.handle.db)).find((k) => k.status === 'pending')?.id as string;
    const [, , iv, body] = sealed.split('.') as [string, string, string, string];
    for (const altered of [
      tamper(sealed, 2, 0),
      tamper(sealed, 3, 0),
      tamper(sealed, 3, -3),
      `v2.${pending}.${iv}.${body}`,
      `v2.${sealed.split('.')[1]}.${iv}.${body.slice(0, -4)}`,
    ]) {
      expect(() => box.open(altered, 'p')).toThrow(/does not open/);
    }
    for (const malformed of [`v3${sealed.slice(2)}`, sealed.split('.').slice(0, 3).join('.'), `${sealed}.x`, 'whsec_abc']) {
      expect(() => box.open(malformed, 'p')).toThrow('unrecognised sealed secret');
    }
  });

  it('refuses to start with a master key that wraps none of the data keys, naming key ids and never a key', async () => {
    const other = randomBytes(32);
    const error = await openSecretBox(database.handle.db, { current: other }, clock).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MasterKeyMismatchError);
    const message = (error as Error).message;
    expect(message).toContain(
      `is wrapped by master key ${masterKeyId(MASTER)}, but this process holds master key ${masterKeyId(other)} (MASTER_KEY)`,
    );
    for (const key of [MASTER, other])
      for (const encoding of ['hex', 'base64', 'base64url'] as const) expect(message).not.toContain(key.toString(encoding));
  });

  it('opens at once what processes started after a data key rotation seal, and reloads once for a key two rotations newer', async () => {
    const running = await open();
    const sealedBefore = running.seal('sealed before', 'p');
    const now = unixSeconds(clock);

    // One rotation: the new active key was pending when `running` started, so it holds it already.
    const first = await rotateDataKey(database.handle, MASTER, now);
    const started = await open();
    const sealedByNewer = started.seal('sealed by a newer process', 'p');
    expect(sealedByNewer.split('.')[1]).toBe(first.active);
    expect(running.open(sealedByNewer, 'p')).toBe('sealed by a newer process');
    expect(started.open(sealedBefore, 'p')).toBe('sealed before');

    // A second rotation while `running` still runs: its active key did not exist when it started.
    const second = await rotateDataKey(database.handle, MASTER, now);
    const sealedLater = (await open()).seal('sealed after two rotations', 'p');
    expect(sealedLater.split('.')[1]).toBe(second.active);
    expect(() => running.open(sealedLater, 'p')).toThrow(UnknownDataKeyError);
    // The failed open started a reload; the next attempt opens it, and `running` now seals with the new active key.
    expect(
      await eventually(() => {
        try {
          return running.open(sealedLater, 'p');
        } catch {
          return undefined;
        }
      }),
    ).toBe('sealed after two rotations');
    expect(running.seal('x', 'p').split('.')[1]).toBe(second.active);

    const keys = await listDataKeys(database.handle.db);
    expect(keys.filter((k) => k.status === 'active').map((k) => k.id)).toEqual([second.active]);
    expect(keys.filter((k) => k.status === 'pending').map((k) => k.id)).toEqual([second.next]);
    expect(keys.find((k) => k.id === first.active)).toMatchObject({ status: 'retired', retired_at: now });
  });

  it('picks up a key created while a reload was already reading: the reload it asks for runs after that one, once for every request meanwhile', async () => {
    // `running` is another process: its own connection, whose reads the gate can hold back.
    const own = openDatabase(database.config);
    const gate = queryGate();
    try {
      const running = await openSecretBox(own.db.withPlugin(gate.plugin), { current: MASTER }, clock);
      const now = unixSeconds(clock);
      await rotateDataKey(database.handle, MASTER, now);
      await rotateDataKey(database.handle, MASTER, now);
      const sealedFirst = (await open()).seal('first unknown key', 'p');

      // An unknown key starts a reload; it has read the data keys, and has not returned yet.
      const read = gate.arm();
      const queriesBefore = gate.queries;
      expect(() => running.open(sealedFirst, 'p')).toThrow(UnknownDataKeyError);
      await read;

      // Meanwhile another process makes a newer key and seals with it: the reload in flight missed it.
      await rotateDataKey(database.handle, MASTER, now);
      const second = await rotateDataKey(database.handle, MASTER, now);
      const sealedSecond = (await open()).seal('key made during the reload', 'p');
      expect(sealedSecond.split('.')[1]).toBe(second.active);
      for (let attempt = 0; attempt < 3; attempt++) expect(() => running.open(sealedSecond, 'p')).toThrow(UnknownDataKeyError);

      gate.release();
      const opened = (sealed: string) => () => {
        try {
          return running.open(sealed, 'p');
        } catch {
          return undefined;
        }
      };
      expect(await eventually(opened(sealedFirst), 2_000)).toBe('first unknown key');
      expect(await eventually(opened(sealedSecond), 2_000)).toBe('key made during the reload');
      // The load in flight, then one more for the three attempts made while it was reading.
      expect(gate.queries - queriesBefore).toBe(2);
    } finally {
      await own.destroy();
    }
  });

  it('lets processes starting together on a new database agree on one active and one pending key', async () => {
    const fresh = await createTestDatabase(engine);
    try {
      const boxes = await Promise.all(Array.from({ length: 4 }, () => openSecretBox(fresh.handle.db, { current: MASTER }, clock)));
      const keys = await listDataKeys(fresh.handle.db);
      expect(keys.map((k) => k.status).sort()).toEqual(['active', 'pending']);
      const active = keys.find((k) => k.status === 'active')?.id;
      for (const each of boxes) expect(each.seal('x', 'p').split('.')[1]).toBe(active);
    } finally {
      await fresh.destroy();
    }
  });
});
