import type { ClientsTables } from '../../clients/client.table.js';
import type { AccountHoldersTables } from '../../connect/account-holder.table.js';

/** Every table of the service: each domain declares its own and they meet here for Kysely. */
export interface Database extends ClientsTables, AccountHoldersTables {}
