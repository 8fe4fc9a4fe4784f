import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';
import type { Bindings, ChildLoggerOptions, LevelWithSilentOrString } from 'pino';

type LogMethod = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/**
 * `request.log`: the request's child logger (bound to its request id), created on first use.
 * Fastify makes a pino child for every request, and most requests never log: successes are logged
 * at debug only. Building a child (bindings serialised, serializers and redaction carried over)
 * was about 5 % of the benchmark's GET.
 */
class LazyRequestLogger {
  private logger: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  private get instance(): FastifyBaseLogger {
    this.logger ??= this.parent.child(this.bindings, this.options);
    return this.logger;
  }

  get level(): LevelWithSilentOrString {
    return this.logger?.level ?? this.options.level ?? this.parent.level;
  }

  set level(level: LevelWithSilentOrString) {
    this.instance.level = level;
  }

  fatal(...args: unknown[]) {
    this.log('fatal', args);
  }
  error(...args: unknown[]) {
    this.log('error', args);
  }
  warn(...args: unknown[]) {
    this.log('warn', args);
  }
  info(...args: unknown[]) {
    this.log('info', args);
  }
  debug(...args: unknown[]) {
    this.log('debug', args);
  }
  trace(...args: unknown[]) {
    this.log('trace', args);
  }
  /** pino's `silent` logs nothing, so it needs no child. */
  silent() {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.instance.child(bindings, options);
  }

  private log(method: LogMethod, args: unknown[]): void {
    const logger = this.instance;
    (logger[method] as (...rest: unknown[]) => void).apply(logger, args);
  }
}

/** Fastify's `childLoggerFactory` for request loggers made on first use (see LazyRequestLogger). */
export const lazyRequestLogger: NonNullable<FastifyServerOptions['childLoggerFactory']> = (logger, bindings, options) =>
  new LazyRequestLogger(logger, bindings, options) as unknown as FastifyBaseLogger;
