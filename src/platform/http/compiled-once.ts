/**
 * What one of Fastify's schema compilers built in this process (`store`), first by what it was
 * built with (`context`: the shared schemas and options, as JSON), then by the caller's key of the
 * schema compiled. Fastify asks its compilers again for every app built, in every plugin context,
 * mostly for the same schemas; what they build is a pure function of those, so one compiled serves
 * every app of the process.
 */
export function compiledOnce<F>(store: Map<string, Map<string, F>>, context: unknown): (key: string, compile: () => F) => F {
  const built = JSON.stringify(context);
  let cache = store.get(built);
  if (!cache) store.set(built, (cache = new Map()));
  const withThisContext = cache;
  return (key, compile) => {
    const known = withThisContext.get(key);
    if (known) return known;
    const compiled = compile();
    withThisContext.set(key, compiled);
    return compiled;
  };
}
