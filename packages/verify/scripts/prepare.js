// `prepare` (npm install, npm ci, npm pack): builds dist/ with TypeScript. An install without
// devDependencies (`npm ci --omit=dev`) has no TypeScript: it says so and builds nothing, so the
// install still succeeds; the service then runs this package's sources through tsx from the
// repository's root (tsconfig.json `paths`).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  process.stderr.write('@ownproof/verify: TypeScript is not installed (no devDependencies), so dist/ is not built\n');
  process.exit(0);
}
const build = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], {
  stdio: 'inherit',
  cwd: fileURLToPath(new URL('..', import.meta.url)),
});
process.exit(build.status ?? 1);
