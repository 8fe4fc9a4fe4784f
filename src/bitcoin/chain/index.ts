/** Public API of the chain-data module. */
export {
  ChainSourceError,
  DEFAULT_MIN_CONFIRMATIONS,
  type AddressActivity,
  type AddressStats,
  type Balance,
  type BalanceAmounts,
  type BalanceAt,
  type BalanceOptions,
  type BlockSummary,
  type ChainSource,
  type ChainSourceErrorCode,
  type ChainTip,
  type ChainTx,
  type HistoryOptions,
  type TxInput,
  type TxOutput,
  type TxStatus,
  type Utxo,
} from './chain-source.js';
export { computeBalance, netValueForAddress } from './balance.js';
export { DEFAULT_TIME_LOOKBACK } from './block-time.js';
export { EsploraChainSource, type EsploraClientOptions } from './esplora/client.js';
export type { EsploraAttempt } from './esplora/http.js';
export { startEsploraServer, type EsploraServer, type EsploraServerOptions, type InjectedFault } from './esplora/server.js';
export { SimulatedChain, type SimulatedChainOptions, type SpendOptions, type TxTiming } from './sim/simulated-chain.js';
export type { SimBlock, SimTx } from './sim/chain-state.js';
export { SIM_ADDRESS_TYPES, type SimAddressType } from './sim/sim-keys.js';
