import type { Kysely, Migration } from 'kysely';
import type { DbCapabilities } from '../database.js';
import { TIMESTAMP, withSequence } from '../migration-helpers.js';

/**
 * Connect: "Sign in with {exchange}" (OAuth 2 with PKCE) begun in a hosted session, found again by
 * the hash of its `state` when the browser returns (src/connect/connect.table.ts, OAuthAttemptTable).
 */
export function connectOAuthMigration(capabilities: DbCapabilities): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await withSequence(db.schema.createTable('connect_oauth_attempts'), capabilities)
        .addColumn('id', 'text', (col) => col.notNull().unique())
        .addColumn('session_id', 'text', (col) => col.notNull())
        .addColumn('provider_id', 'text', (col) => col.notNull())
        .addColumn('state_hash', 'text', (col) => col.notNull().unique())
        .addColumn('verifier_sealed', 'text', (col) => col.notNull())
        .addColumn('created_at', TIMESTAMP, (col) => col.notNull())
        .addColumn('expires_at', TIMESTAMP, (col) => col.notNull())
        .execute();
    },
  };
}
