import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');
/** The code that ships: the service and the two packages. */
const SOURCE_ROOTS = ['src', 'packages/sdk/src', 'packages/verify/src'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/**
 * The files `file` loads when it is loaded: its static imports and re-exports of relative paths.
 * `import type` and `export type … from` are left out (erased from the JavaScript: with
 * verbatimModuleSyntax, exactly those); `import()` too, since a lazy import runs after every
 * module has loaded, which is how a cycle is broken on purpose (platform/lazy-module.ts).
 */
function runtimeImports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const specifiers: string[] = [];
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement) && !statement.importClause?.isTypeOnly && ts.isStringLiteral(statement.moduleSpecifier)) {
      specifiers.push(statement.moduleSpecifier.text);
    }
    if (
      ts.isExportDeclaration(statement) &&
      !statement.isTypeOnly &&
      statement.moduleSpecifier &&
      ts.isStringLiteral(statement.moduleSpecifier)
    ) {
      specifiers.push(statement.moduleSpecifier.text);
    }
  }
  return specifiers
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => path.resolve(path.dirname(file), specifier.replace(/\.js$/, '.ts')))
    .filter((target) => existsSync(target));
}

/** The strongly connected components of more than one file (Tarjan), each sorted: the import cycles. */
function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    for (let member = stack.pop()!; ; member = stack.pop()!) {
      onStack.delete(member);
      component.push(member);
      if (member === node) break;
    }
    const selfImport = graph.get(node)?.includes(node) ?? false;
    if (component.length > 1 || selfImport) cycles.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return cycles;
}

/**
 * No import cycles among the files that run (docs/architecture.md, "Modules"): in a cycle, one of
 * its modules runs before the other has finished loading, and a value it reads at load time is
 * undefined — an error that depends on which file happened to be imported first. Type-only imports
 * are free to go both ways: they are erased.
 */
describe('import cycles', () => {
  it('finds a cycle of several files, and a file that imports itself, in a made-up graph', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a', 'd']],
      ['d', []],
      ['e', ['e']],
      ['f', ['d']],
    ]);
    expect(importCycles(graph)).toEqual([['a', 'b', 'c'], ['e']]);
    expect(
      importCycles(
        new Map([
          ['a', ['b']],
          ['b', []],
        ]),
      ),
    ).toEqual([]);
  });

  it('reads an import and a re-export as runtime edges, and leaves out import type and import()', () => {
    const file = path.join(ROOT, 'src/platform/http/app.ts');
    const imports = runtimeImports(file).map((target) => path.relative(ROOT, target));
    expect(imports).toContain('src/platform/http/rate-limit.ts');
    expect(imports).not.toContain('src/platform/context.ts'); // `import type { AppContext … }` only
  });

  it('has none among the service and packages sources', () => {
    const files = SOURCE_ROOTS.flatMap((root) => sourceFiles(path.join(ROOT, root)));
    expect(files.length).toBeGreaterThan(300);
    const graph = new Map(files.map((file) => [file, runtimeImports(file)]));
    const cycles = importCycles(graph).map((cycle) => cycle.map((file) => path.relative(ROOT, file)));
    expect(cycles).toEqual([]);
  });
});
