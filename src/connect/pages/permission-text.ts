import type { SessionPermission } from '../session.schemas.js';

/**
 * What each session permission lets the client do, in the words of the interface specification
 * ("Permission values"), so the disclaimer says exactly what the client asked for.
 */
export const PERMISSION_TEXT: Record<SessionPermission, { title: string; meaning: string }> = {
  balances: {
    title: 'Balances',
    meaning: 'View current financial standings: available and current funds and overall value across currencies or assets.',
  },
  transactions: {
    title: 'Transactions',
    meaning: 'Retrieve transaction history.',
  },
  addresses: {
    title: 'Addresses',
    meaning: 'View the account’s cryptocurrency addresses, where applicable to the account type.',
  },
};
