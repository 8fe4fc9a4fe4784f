/**
 * A module imported on its first use and then kept: for heavy code that most processes never need
 * (ccxt for live exchanges, pdfkit for a statement's first PDF, the statement job's work), so it
 * loads only when used. Later uses skip the loader (each `import()` call goes through its resolve
 * hooks again, which showed in profiles of busy workers). Not a way around an import cycle: a job's
 * declaration imports no service, so none needs one (docs/architecture.md, "Background jobs").
 */
export function lazyModule<M>(load: () => Promise<M>): () => Promise<M> {
  let loaded: Promise<M> | undefined;
  return () => (loaded ??= load());
}
