import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const REPO = path.resolve(import.meta.dirname, '../..');

/** A workspace package packed by `npm pack`: its name, its folder in this repository, and the tarball. */
export interface PackedPackage {
  name: string;
  folder: string;
  tarball: string;
}

type LockEntry = { version?: string; dependencies?: Record<string, string> } & Record<string, unknown>;

/**
 * Makes `dir` an integrator's empty project that depends on the `packed` tarballs only, with the
 * lockfile their `npm install` would write: each dependency at the version this repository's own
 * lockfile holds. npm then needs no registry metadata, only the dependencies' tarballs, which
 * `npm ci` of this repository left in npm's cache, so `npm install --offline` installs it (without
 * the lockfile npm 11 asks for full registry metadata, which its cache does not keep).
 * The tarballs must sit in `dir`.
 */
export function writeOfflineProject(dir: string, packed: PackedPackage[]): void {
  const lock = JSON.parse(readFileSync(path.join(REPO, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  const entries: Record<string, unknown> = {};
  // Where npm finds `name` from the package at `from`: its own node_modules, then each ancestor's.
  const locate = (from: string, name: string): string => {
    for (let base = from; ; base = base.includes('/node_modules/') ? base.slice(0, base.lastIndexOf('/node_modules/')) : '') {
      const candidate = `${base ? `${base}/` : ''}node_modules/${name}`;
      if (lock.packages[candidate]) return candidate;
      if (!base) throw new Error(`${name} is not in package-lock.json`);
    }
  };
  const visit = (from: string, dependencies: Record<string, string> = {}) => {
    for (const name of Object.keys(dependencies)) {
      const at = locate(from, name);
      if (entries[at]) continue;
      entries[at] = lock.packages[at];
      visit(at, lock.packages[at]?.dependencies);
    }
  };
  const own: Record<string, unknown> = {};
  const dependencies: Record<string, string> = {};
  for (const { name, folder, tarball } of packed) {
    const manifest = JSON.parse(readFileSync(path.join(REPO, folder, 'package.json'), 'utf8')) as LockEntry;
    visit('', manifest.dependencies);
    const spec = `file:${path.basename(tarball)}`;
    const integrity = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
    dependencies[name] = spec;
    own[`node_modules/${name}`] = {
      version: manifest.version,
      resolved: spec,
      integrity,
      license: manifest.license,
      ...(manifest.dependencies ? { dependencies: manifest.dependencies } : {}),
      ...(manifest.bin ? { bin: manifest.bin } : {}),
      engines: manifest.engines,
    };
  }
  const root = { name: 'integrator', version: '1.0.0', private: true, type: 'module', dependencies };
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify(root, null, 2));
  writeFileSync(
    path.join(dir, 'package-lock.json'),
    JSON.stringify(
      { name: root.name, version: root.version, lockfileVersion: 3, requires: true, packages: { '': root, ...own, ...entries } },
      null,
      2,
    ),
  );
}
