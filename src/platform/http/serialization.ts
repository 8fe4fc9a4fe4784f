import SerializerSelector, { type SerializerCompiler, type SerializerFactory } from '@fastify/fast-json-stringify-compiler';
import { compiledOnce } from './compiled-once.js';

/** Fastify's own serializer builder (fast-json-stringify), as Fastify uses it when given none. */
const fastifyDefault = SerializerSelector();

/**
 * Serializers compiled in this process, by the shared schemas and options, then the response
 * schema. Fastify compiles every route's response schemas when an app is built: about 2 s per app
 * on the 2-core test machine, paid by every app a test file builds (binance.test.ts: six an
 * engine), against 0.1 s once compiled. What fast-json-stringify generates is a pure function of
 * the schema and those shared schemas and options.
 */
const compiled = new Map<string, Map<string, ReturnType<SerializerCompiler>>>();

/**
 * Fastify's serializer builder (schemaController.compilersFactory.buildSerializer): Fastify's
 * default, unchanged, compiling each response schema once per process rather than once per app.
 */
export const buildSerializerCompiler: SerializerFactory = (externalSchemas, options) => {
  const compile = fastifyDefault(externalSchemas, options);
  const once = compiledOnce(compiled, { externalSchemas, options });
  return (route) => once(JSON.stringify(route.schema), () => compile(route));
};
