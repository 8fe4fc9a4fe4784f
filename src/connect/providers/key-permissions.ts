/**
 * What an exchange says an API key may do, read from the exchange's own "key permissions" answer.
 * We only keep read-only keys: a key that can trade or move funds is refused in the connect flow,
 * because holding it would make a leak of our database a theft of the account holder's money.
 */
export interface KeyPowers {
  canTrade: boolean;
  canWithdraw: boolean;
}

/** One exchange's permissions endpoint: which ccxt implicit method asks, and how to read its answer. */
export interface KeyPermissionCheck {
  /** The ccxt implicit API method (generated from the exchange's endpoint list). */
  method: string;
  /** Reads the exchange's documented answer; throws when it is not that shape. */
  read(response: unknown): KeyPowers;
}

function record(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new TypeError(`${what}: expected an object`);
  return value as Record<string, unknown>;
}

/** Exchanges answer booleans as true/false, "true"/"false" or 1/0 depending on the endpoint. */
function flag(value: unknown): boolean {
  return value === true || value === 'true' || value === 1 || value === '1';
}

/** Binance `GET /sapi/v1/account/apiRestrictions`: one flag per power. */
export const binanceKeyPermissions: KeyPermissionCheck = {
  method: 'sapiGetAccountApiRestrictions',
  read(response) {
    const r = record(response, 'apiRestrictions');
    const trading = [
      'enableSpotAndMarginTrading',
      'enableMargin',
      'enableFutures',
      'enableVanillaOptions',
      'enablePortfolioMarginTrading',
      'enableFixApiTrade',
    ];
    return {
      canTrade: trading.some((name) => flag(r[name])),
      // An internal transfer sends funds to another Binance user: as good as a withdrawal.
      canWithdraw: flag(r.enableWithdrawals) || flag(r.enableInternalTransfer),
    };
  },
};

/** Coinbase Advanced Trade `GET /api/v3/brokerage/key_permissions`: `can_view`, `can_trade`, `can_transfer`. */
export const coinbaseKeyPermissions: KeyPermissionCheck = {
  method: 'v3PrivateGetBrokerageKeyPermissions',
  read(response) {
    const r = record(response, 'key_permissions');
    return { canTrade: flag(r.can_trade), canWithdraw: flag(r.can_transfer) };
  },
};

/** Gemini `POST /v1/roles`: Auditor (read-only), Trader, Fund Manager (withdrawals). */
export const geminiKeyPermissions: KeyPermissionCheck = {
  method: 'privatePostV1Roles',
  read(response) {
    const r = record(response, 'roles');
    return { canTrade: flag(r.isTrader), canWithdraw: flag(r.isFundManager) };
  },
};

/** OKX `GET /api/v5/account/config`: `perm` is a comma-separated list of read_only, trade, withdraw. */
export const okxKeyPermissions: KeyPermissionCheck = {
  method: 'privateGetAccountConfig',
  read(response) {
    const data = record(response, 'account config').data;
    if (!Array.isArray(data)) throw new TypeError('account config: expected data[]');
    const perms = String(record(data[0], 'account config data').perm ?? '')
      .split(',')
      .map((p) => p.trim());
    return { canTrade: perms.includes('trade'), canWithdraw: perms.includes('withdraw') };
  },
};

/** Bitfinex `POST /v2/auth/r/permissions`: `[[scope, read, write], …]`; writing orders or withdrawals is a power. */
export const bitfinexKeyPermissions: KeyPermissionCheck = {
  method: 'privatePostAuthRPermissions',
  read(response) {
    if (!Array.isArray(response)) throw new TypeError('permissions: expected a list');
    const writes = new Set(response.filter((row): row is unknown[] => Array.isArray(row) && flag(row[2])).map((row) => String(row[0])));
    return {
      canTrade: ['orders', 'positions', 'funding'].some((scope) => writes.has(scope)),
      canWithdraw: writes.has('withdraw') || writes.has('ui_withdraw'),
    };
  },
};

/** KuCoin `GET /api/v1/user/api-key`: `permission` lists General (read), Spot, Margin, Futures, Withdrawal… */
export const kucoinKeyPermissions: KeyPermissionCheck = {
  method: 'privateGetUserApiKey',
  read(response) {
    const data = record(record(response, 'api-key').data, 'api-key data');
    const perms = String(data.permission ?? '')
      .split(',')
      .map((p) => p.trim().toLowerCase());
    return {
      canTrade: perms.some((p) => p !== '' && p !== 'general' && p !== 'withdrawal'),
      canWithdraw: perms.includes('withdrawal'),
    };
  },
};
