import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The documents name files of the repository (`src/connect/providers/ip-pace.ts`, `history/cursor.ts`,
 * `errors.ts`) and each other's sections (`[…](operations.md#metrics)`, `docs/architecture.md,
 * "Secrets at rest"`). Files move and sections get cut; these checks fail naming every reference
 * that no longer leads anywhere, with its document and line, so the documents cannot quietly rot.
 */

const root = fileURLToPath(new URL('..', import.meta.url));

/** Every file of the repository (tracked, or new and not ignored), relative to its root. */
const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { cwd: root, encoding: 'utf8' })
  .split('\0')
  .filter((file) => file !== '' && !/(^|\/)(node_modules|dist)\//.test(file) && existsSync(join(root, file)));
const fileSet = new Set(files);
const directories = new Set(files.flatMap((file) => ancestors(file)));
const basenames = new Set(files.map((file) => basename(file)));
const directoryNames = new Set([...directories].map((dir) => basename(dir)));

function ancestors(file: string): string[] {
  const found: string[] = [];
  for (let dir = dirname(file); dir !== '.'; dir = dirname(dir)) found.push(dir);
  return found;
}

/** The documents checked: the README, the changelog, docs/ and the READMEs of packages and examples. */
const documents = files.filter(
  (file) =>
    file === 'README.md' ||
    file === 'CHANGELOG.md' ||
    /^docs\/[^/]+\.md$/.test(file) ||
    /^(packages|examples)\/[^/]+\/README\.md$/.test(file),
);

interface Line {
  document: string;
  line: number;
  text: string;
}

/** A document's lines outside fenced code blocks (code there is an example, not a reference). */
function proseLines(document: string): Line[] {
  const lines: Line[] = [];
  let fenced = false;
  readFileSync(join(root, document), 'utf8')
    .split('\n')
    .forEach((text, index) => {
      if (/^\s*(```|~~~)/.test(text)) fenced = !fenced;
      else if (!fenced) lines.push({ document, line: index + 1, text });
    });
  return lines;
}

/** Where a path starts when the documents name it from the repository's root. */
const ROOTS = ['src/', 'test/', 'scripts/', 'bench/', 'packages/', 'examples/', 'docs/', 'bin/', '.ci/'];
const SOURCE_NAME = /^[\w.-]+\.(ts|js|mjs|cjs|css)$/;
const RELATIVE_FILE = /^[\w.-]+(\/[\w.-]+)+\.(ts|js|mjs|cjs|css|json|md)$/;
const RELATIVE_DIRECTORY = /^[\w.-]+(\/[\w.-]+)*\/$/;

/**
 * A template or an example rather than a name: `<exchange>`, `*.test.ts`, `{id}`, `…`, `NNNN_name.ts`,
 * `DATA_DIR/master.key`, URLs; or something the repository makes and ignores (`dist/`, `artifacts/`).
 */
function isPlaceholder(token: string): boolean {
  return (
    /[<>*{}…]|\.\.\.|NNNN|:\/\/|^\.\.\//.test(token) ||
    /(^|\/)[A-Z][A-Z0-9_]+(\/|$)/.test(token) ||
    /^(dist(\.[\w-]+)?|data|artifacts|coverage|node_modules)(\/|$)/.test(token)
  );
}

function exists(path: string): boolean {
  const bare = path.replace(/\/$/, '');
  return fileSet.has(bare) || directories.has(bare);
}

/** Somewhere in the repository, as written (`history/cursor.ts` names `src/connect/providers/history/cursor.ts`). */
function existsBelowSomeFolder(path: string): boolean {
  const bare = path.replace(/\/$/, '');
  const suffix = `/${bare}`;
  return files.some((file) => file.endsWith(suffix)) || [...directories].some((dir) => dir.endsWith(suffix));
}

/**
 * Whether the file a backticked token names is there (from the repository's root, or from the
 * document's folder for a package's README); undefined for a token that names no file of ours
 * (`application/json`, `/v1/events`, an exchange's `markets/`, a path in ccxt's repository).
 */
function checkToken(raw: string, document: string): boolean | undefined {
  const token = raw.replace(/:\d+(-\d+)?$/, '').replace(/^\.\//, '');
  if (/\s/.test(token) || isPlaceholder(token) || token.startsWith('/')) return undefined;
  if (ROOTS.some((prefix) => token.startsWith(prefix))) return exists(token) || exists(join(dirname(document), token));
  if (RELATIVE_FILE.test(token) || RELATIVE_DIRECTORY.test(token)) {
    // Written from a domain's folder (`providers/ip-pace.ts`, `pages/`): only when it starts with one of our folders.
    if (!directoryNames.has(token.split('/')[0] ?? '')) return undefined;
    return exists(token) || existsBelowSomeFolder(token);
  }
  if (SOURCE_NAME.test(token)) {
    // ESM imports name a TypeScript source by its compiled name (`modules.js` is modules.ts).
    return basenames.has(token) || basenames.has(token.replace(/\.js$/, '.ts'));
  }
  return undefined;
}

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[`*_]/g, '')
    .replace(/[^\p{L}\p{N} -]/gu, '')
    .replace(/ /g, '-');
}

/** The sections of a document a reader can be sent to: its headings, and paragraphs led by a bold name (`**Build.**`). */
function sections(document: string): { anchors: Set<string>; names: Set<string> } {
  const anchors = new Set<string>();
  const names = new Set<string>();
  for (const { text } of proseLines(document)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(text);
    if (heading?.[1] !== undefined) {
      anchors.add(slug(heading[1]));
      names.add(heading[1].replace(/`/g, ''));
    }
    const lead = /^(?:- )?\*\*([^*]+?)\.?\*\*/.exec(text);
    if (lead?.[1] !== undefined) names.add(lead[1].replace(/`/g, ''));
  }
  return { anchors, names };
}

function dangling(found: string[]): string {
  return found.length === 0 ? '' : `\n${found.join('\n')}\n`;
}

describe('references in the documents', () => {
  it('name files that exist', () => {
    expect(documents).toContain('docs/architecture.md');
    const found: string[] = [];
    for (const document of documents) {
      for (const { line, text } of proseLines(document)) {
        for (const [, token] of text.matchAll(/`([^`\n]+)`/g)) {
          if (token !== undefined && checkToken(token, document) === false) found.push(`${document}:${line}: \`${token}\``);
        }
        // Paths written without backticks, from the repository's root (`see src/bitcoin/message/README.md`).
        const prose = text.replace(/`[^`\n]*`/g, ' ').replace(/\]\([^)]*\)/g, ' ');
        for (const [, path] of prose.matchAll(/(?:^|[\s(])((?:src|test|scripts|bench|packages|examples|docs|bin)\/[\w./-]*[\w/])/g)) {
          if (path !== undefined && checkToken(path, document) === false) found.push(`${document}:${line}: ${path}`);
        }
      }
    }
    expect(dangling(found)).toBe('');
  });

  it('link to documents and headings that exist', () => {
    const found: string[] = [];
    for (const document of documents) {
      for (const { line, text } of proseLines(document)) {
        for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
          if (target === undefined || /^[a-z]+:/.test(target)) continue;
          const [path = '', anchor] = target.split('#');
          const linked = path === '' ? document : join(dirname(document), path);
          if (!exists(linked)) found.push(`${document}:${line}: ${target} (no such file)`);
          else if (anchor !== undefined && linked.endsWith('.md') && !sections(linked).anchors.has(anchor)) {
            found.push(`${document}:${line}: ${target} (no such heading)`);
          }
        }
      }
    }
    expect(dangling(found)).toBe('');
  });

  it('cite sections that exist, from the documents and from code comments', () => {
    // `docs/architecture.md, "Secrets at rest"` or `architecture.md "Node versions"`: a heading or a bold lead-in.
    const citing = [
      ...documents,
      ...files.filter((file) => /^(src|test|scripts|bench|packages|examples)\/.*\.ts$/.test(file) || file === 'eslint.config.js'),
    ];
    const found: string[] = [];
    for (const file of citing) {
      readFileSync(join(root, file), 'utf8')
        .split('\n')
        .forEach((text, index) => {
          for (const [, name, section] of text.matchAll(/\b([\w-]+)\.md\b,?\)?,? "([^"]+)"/g)) {
            if (name === undefined || section === undefined) continue;
            const cited = documents.find(
              (document) => basename(document) === `${name}.md` && (name !== 'README' || document === 'README.md'),
            );
            if (cited === undefined) continue;
            // A citation may shorten a heading to its first words ("Pacing" for "Pacing, and a first refresh…").
            const headings = [...sections(cited).names];
            if (
              !headings.some(
                (heading) => heading === section || (heading.startsWith(section) && /^[ ,:(]/.test(heading.slice(section.length))),
              )
            )
              found.push(`${file}:${index + 1}: ${name}.md, "${section}"`);
          }
        });
    }
    expect(dangling(found)).toBe('');
  });
});
