import { binance } from './exchanges/binance.js';
import { bitfinex } from './exchanges/bitfinex.js';
import { bitstamp } from './exchanges/bitstamp.js';
import { coinbase } from './exchanges/coinbase.js';
import { gemini } from './exchanges/gemini.js';
import { kraken } from './exchanges/kraken.js';
import { kucoin } from './exchanges/kucoin.js';
import { okx } from './exchanges/okx.js';
import type { ExchangeRow } from './exchanges/row.js';

export type { ExchangeRow };

/**
 * The supported exchanges, in the order the connect pages list them. Adding an exchange ccxt
 * supports is a row (a file in exchanges/, in the language of exchanges/row.ts) and a line here,
 * not a module.
 */
export const EXCHANGES: readonly ExchangeRow[] = [coinbase, kraken, binance, bitstamp, gemini, okx, bitfinex, kucoin];
