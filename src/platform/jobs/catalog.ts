import type { Static, TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../context.js';

/** What a job handler gets besides its payload. */
export interface JobRun {
  ctx: AppContext;
  jobId: string;
  /** 1 on the first run, 2 on the first retry, ... */
  attempt: number;
  /** Aborted when the job times out, its lease is lost, or the worker shuts down hard. */
  signal: AbortSignal;
  log: FastifyBaseLogger;
}

/**
 * One kind of background work, as the code that enqueues it sees it: its type, payload schema,
 * retry policy and timeout. A declaration (`declareJob`, in a `<name>.job.ts` file) imports no
 * service, so a service imports it to enqueue the job without importing the code that runs it
 * (trigger.dev's worker catalog): jobs and services never import each other.
 */
export interface JobDeclaration<S extends TSchema = TSchema> {
  type: string;
  payload: S;
  /** Runs at most this many times; after the last failure the job is dead (kept, visible). */
  maxAttempts: number;
  /** A run longer than this is aborted and counts as a failure. */
  timeoutMs: number;
  /** Delay before attempt `attempt + 1` after attempt `attempt` failed. Default: exponential with jitter. */
  retryDelayMs?: (attempt: number, error: unknown) => number;
}

/**
 * A job type with its handler, what a worker runs: the module declaration attaches the handler
 * to the declaration (`defineJob({ ...someJob, run })`). Handlers must be idempotent — a crash
 * after the work but before the job is marked done runs it again.
 */
export interface JobDefinition<S extends TSchema = TSchema> extends JobDeclaration<S> {
  run(payload: Static<S>, run: JobRun): Promise<void>;
}

export interface CompiledJobDefinition extends JobDefinition {
  check: TypeCheck<TSchema>;
}

/** Declares a job type; the payload type flows from the schema into `enqueueJob` and the handler. */
export function declareJob<S extends TSchema>(declaration: JobDeclaration<S>): JobDeclaration<S> {
  return declaration;
}

/** A declared job type with its handler (`defineJob({ ...declaration, run })`), for a module's `jobs`. */
export function defineJob<S extends TSchema>(definition: JobDefinition<S>): JobDefinition<S> {
  return definition;
}

/** Base and cap of the default retry schedule: 2 s, 4 s, 8 s … up to one hour, each ±50 %. */
const BASE_DELAY_MS = 2_000;
const MAX_DELAY_MS = 3_600_000;

export function exponentialBackoff(attempt: number, random: () => number = Math.random): number {
  const delay = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** Math.max(0, attempt - 1));
  return Math.round(delay * (0.5 + random()));
}

/** Each payload schema compiled once, for the enqueues and the worker that share it. */
const payloadChecks = new WeakMap<TSchema, TypeCheck<TSchema>>();

/** The compiled check of a job type's payload schema. */
export function payloadCheck<S extends TSchema>(declaration: JobDeclaration<S>): TypeCheck<S> {
  let check = payloadChecks.get(declaration.payload);
  if (!check) {
    check = TypeCompiler.Compile(declaration.payload);
    payloadChecks.set(declaration.payload, check);
  }
  return check as TypeCheck<S>;
}

/** The job types a worker can run, by type name. */
export class JobCatalog {
  private readonly definitions = new Map<string, CompiledJobDefinition>();

  constructor(definitions: readonly JobDefinition<TSchema>[]) {
    for (const definition of definitions) {
      if (this.definitions.has(definition.type)) throw new Error(`job type ${definition.type} defined twice`);
      this.definitions.set(definition.type, { ...definition, check: payloadCheck(definition) });
    }
  }

  get(type: string): CompiledJobDefinition | undefined {
    return this.definitions.get(type);
  }

  types(): string[] {
    return [...this.definitions.keys()];
  }
}
