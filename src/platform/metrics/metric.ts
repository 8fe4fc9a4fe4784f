import type { AppContext } from '../context.js';
import type { ConnectionStats } from '../db/database.js';

/** What a gauge's `collect` reads at scrape time. */
export type CollectDeps = Pick<AppContext, 'db' | 'clock'> & {
  /** The database's connections now; absent when the context was built without its database handle. */
  connections?: () => ConnectionStats;
};

/** One value of a gauge read at scrape time. */
export interface GaugeSample<L extends string> {
  labels: Partial<Record<L, string>>;
  value: number;
}

interface Declared<K extends string, L extends string> {
  kind: K;
  /** `ownproof_…`, snake_case, with the unit last (`_seconds`, `_total`). */
  name: string;
  help: string;
  /**
   * Labels take a few values each (a route template, a job type, a status): never an id, an
   * e-mail address or anything else that grows with the data or names a person.
   */
  labelNames: readonly L[];
}

export type CounterDefinition<L extends string = string> = Declared<'counter', L>;
export type HistogramDefinition<L extends string = string> = Declared<'histogram', L> & { buckets: readonly number[] };
/** A gauge set by the code that owns the value, or read from `collect` at every scrape (a value another process may change: the job queue). */
export type GaugeDefinition<L extends string = string> = Declared<'gauge', L> & {
  collect?: (deps: CollectDeps) => Promise<GaugeSample<L>[]> | GaugeSample<L>[];
};
export type MetricDefinition = CounterDefinition | HistogramDefinition | GaugeDefinition;

/**
 * Metrics are declared like jobs: a module lists its definitions (`AppModule.metrics`), every
 * context makes them in its registry, and code records through `ctx.metrics` with the definition.
 * The identity functions give the literal its type, label names included.
 */
export function defineCounter<L extends string = never>(definition: Omit<CounterDefinition<L>, 'kind'>): CounterDefinition<L> {
  return { kind: 'counter', ...definition };
}

export function defineHistogram<L extends string = never>(definition: Omit<HistogramDefinition<L>, 'kind'>): HistogramDefinition<L> {
  return { kind: 'histogram', ...definition };
}

export function defineGauge<L extends string = never>(definition: Omit<GaugeDefinition<L>, 'kind'>): GaugeDefinition<L> {
  return { kind: 'gauge', ...definition };
}
