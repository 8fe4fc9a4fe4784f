import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { LogLevel } from '../config/config.js';
import { createLogger } from '../http/logging.js';
import type { CollectDeps, CounterDefinition, GaugeDefinition, HistogramDefinition, MetricDefinition } from './metric.js';

/**
 * The metrics of one context (`ctx.metrics`): one prom-client registry holding every metric the
 * modules declare (`AppModule.metrics`). Code records with the definition it declared
 * (`ctx.metrics.counter(mailMessages).inc({ … })`); a definition no module declared is a bug, and
 * throws. One registry per context, not prom-client's global one: a process may build several
 * contexts (the tests do), and each counts its own.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly instruments = new Map<MetricDefinition, Counter | Histogram | Gauge>();
  private processMetrics = false;

  constructor(definitions: readonly MetricDefinition[], deps: CollectDeps & { logLevel: LogLevel }) {
    for (const definition of definitions) {
      const common = { name: definition.name, help: definition.help, labelNames: [...definition.labelNames], registers: [this.registry] };
      // prom-client refuses a second metric of the same name in a registry: two modules cannot declare one.
      this.instruments.set(
        definition,
        definition.kind === 'counter'
          ? new Counter(common)
          : definition.kind === 'histogram'
            ? new Histogram({ ...common, buckets: [...definition.buckets] })
            : new Gauge({ ...common, ...(definition.collect ? { collect: collector(definition, deps) } : {}) }),
      );
    }
  }

  counter<L extends string>(definition: CounterDefinition<L>): Counter<L> {
    return this.instrument(definition) as Counter<L>;
  }

  histogram<L extends string>(definition: HistogramDefinition<L>): Histogram<L> {
    return this.instrument(definition) as Histogram<L>;
  }

  gauge<L extends string>(definition: GaugeDefinition<L>): Gauge<L> {
    return this.instrument(definition) as Gauge<L>;
  }

  /**
   * Adds Node's process metrics (CPU, memory, event loop lag, GC, handles: prom-client's default
   * set, under their usual names) to this registry, once: what a process exposes at its scrape
   * endpoint. Not in every context, because they watch the process (GC and event-loop observers).
   */
  includeProcessMetrics(): void {
    if (this.processMetrics) return;
    this.processMetrics = true;
    collectDefaultMetrics({ register: this.registry });
  }

  private instrument(definition: MetricDefinition): Counter | Histogram | Gauge {
    const instrument = this.instruments.get(definition);
    if (!instrument) throw new Error(`metric ${definition.name} is not declared by any module (AppModule.metrics)`);
    return instrument;
  }
}

/**
 * The gauge's prom-client `collect`: the values of now replace the last scrape's. A failure (the
 * database not answering) leaves the gauge without values for this scrape and logs why, instead of
 * failing the whole scrape: the process's own metrics matter most exactly then.
 */
function collector(definition: GaugeDefinition, deps: CollectDeps & { logLevel: LogLevel }) {
  let log: ReturnType<typeof createLogger> | undefined;
  return async function collect(this: Gauge) {
    let samples: Awaited<ReturnType<NonNullable<GaugeDefinition['collect']>>> = [];
    try {
      samples = await definition.collect!(deps);
    } catch (error) {
      log ??= createLogger(deps.logLevel);
      log.warn({ err: error, metric: definition.name }, 'metric not collected');
    }
    // Replaced at once, so two scrapes at the same time never mix their values.
    this.reset();
    for (const sample of samples) this.set(sample.labels, sample.value);
  };
}
