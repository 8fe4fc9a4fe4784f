// Compiles src/ to dist/: what `bin/ownproof.js` and `npm start` run. npm's `prepare` lifecycle runs
// it at the end of every `npm install`/`npm ci` in this tree, and the test suite's global set-up runs
// it before any test, so dist/ never lags the sources it was made from. Node runs this file's
// TypeScript as it is (type stripping, Node ≥ 22.18). Type checking is not done
// here but in `npm run lint` (`tsc --noEmit`): this is esbuild's per-file transpilation, ~0.3 s.
//
// One output file per source file, same layout (no bundle): lazy `import()`s stay lazy, every
// package in node_modules stays an ordinary import, and files found through `import.meta.url`
// (stylesheets, fonts, the browser wallet script) are copied beside the code that reads them.
import { readdirSync } from 'node:fs';
import { cp, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SOURCES = path.join(ROOT, 'src');
export const DIST = path.join(ROOT, 'dist');

/** The TypeScript that ships: everything under src/ but tests and type declarations. */
function entryPoints(): string[] {
  return readdirSync(SOURCES, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts') && !file.endsWith('.d.ts'))
    .map((file) => path.join(SOURCES, file));
}

/** Files the code reads at run time: everything under src/ that is neither TypeScript nor a README. */
const isAsset = (source: string): boolean => !source.endsWith('.ts') && !source.endsWith('.md');

/**
 * Replaces dist/ with a fresh build of src/ (nothing left over from deleted or renamed sources).
 * Built beside it and swapped in by two renames, so a process starting from dist/ meanwhile (a
 * test's child, a server) finds the old build or the new one, not half of one.
 */
export async function buildDist(): Promise<void> {
  const next = `${DIST}.next-${process.pid}`;
  const old = `${DIST}.old-${process.pid}`;
  await rm(next, { recursive: true, force: true });
  await build({
    entryPoints: entryPoints(),
    outdir: next,
    outbase: SOURCES,
    bundle: false,
    format: 'esm',
    platform: 'node',
    target: 'node24',
    sourcemap: true,
    logLevel: 'warning',
  });
  await cp(SOURCES, next, { recursive: true, filter: (source) => isAsset(source) });
  await rename(DIST, old).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  });
  await rename(next, DIST);
  await rm(old, { recursive: true, force: true });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = performance.now();
  await buildDist();
  console.warn(`ownproof: built dist/ from src/ in ${Math.round(performance.now() - started)} ms`);
}
