import type { Migration } from 'kysely';
import type { DbCapabilities } from '../database.js';
import { clientsMigration } from './0001_clients.js';
import { accountHoldersMigration } from './0002_account_holders.js';
import { jobsMigration } from './0003_jobs.js';
import { eventsMigration } from './0004_events.js';
import { webhooksMigration } from './0005_webhooks.js';
import { idempotencyMigration } from './0006_idempotency.js';
import { connectMigration } from './0007_connect.js';
import { verifyMigration } from './0008_verify.js';
import { connectOwnershipMigration } from './0009_connect_ownership.js';
import { mailMigration } from './0010_mail.js';
import { verifyAccessMigration } from './0011_verify_access.js';
import { verifyStatementsMigration } from './0012_verify_statements.js';
import { usageMigration } from './0013_usage.js';
import { verifyStatementDocumentsMigration } from './0014_verify_statement_documents.js';
import { dataKeysMigration } from './0015_data_keys.js';
import { connectHistoryCursorMigration } from './0016_connect_history_cursor.js';
import { connectOAuthMigration } from './0017_connect_oauth.js';
import { verifyClaimControllerMigration } from './0018_verify_claim_controller.js';
import { sessionEventsWithoutSecretMigration } from './0019_session_events_without_secret.js';
import { connectSessionBrowserMigration } from './0020_connect_session_browser.js';
import { pricesMigration } from './0021_prices.js';
import { verifyStatementValuationMigration } from './0022_verify_statement_valuation.js';
import { connectExchangeCallsMigration } from './0023_connect_exchange_calls.js';
import { connectExchangePacesMigration } from './0024_connect_exchange_paces.js';

/**
 * The ordered list of schema versions. Names sort in the order they must run; a migration, once
 * released, is never edited — a change is a new entry.
 */
export function allMigrations(capabilities: DbCapabilities): Record<string, Migration> {
  return {
    '0001_clients': clientsMigration(capabilities),
    '0002_account_holders': accountHoldersMigration(capabilities),
    '0003_jobs': jobsMigration(capabilities),
    '0004_events': eventsMigration(capabilities),
    '0005_webhooks': webhooksMigration(capabilities),
    '0006_idempotency': idempotencyMigration(capabilities),
    '0007_connect': connectMigration(capabilities),
    '0008_verify': verifyMigration(capabilities),
    '0009_connect_ownership': connectOwnershipMigration(),
    '0010_mail': mailMigration(capabilities),
    '0011_verify_access': verifyAccessMigration(capabilities),
    '0012_verify_statements': verifyStatementsMigration(capabilities),
    '0013_usage': usageMigration(capabilities),
    '0014_verify_statement_documents': verifyStatementDocumentsMigration(capabilities),
    '0015_data_keys': dataKeysMigration(capabilities),
    '0016_connect_history_cursor': connectHistoryCursorMigration(),
    '0017_connect_oauth': connectOAuthMigration(capabilities),
    '0018_verify_claim_controller': verifyClaimControllerMigration(),
    '0019_session_events_without_secret': sessionEventsWithoutSecretMigration(),
    '0020_connect_session_browser': connectSessionBrowserMigration(),
    '0021_prices': pricesMigration(capabilities),
    '0022_verify_statement_valuation': verifyStatementValuationMigration(),
    '0023_connect_exchange_calls': connectExchangeCallsMigration(capabilities),
    '0024_connect_exchange_paces': connectExchangePacesMigration(),
  };
}
