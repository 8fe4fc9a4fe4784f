/**
 * Node/V8 options every ownproof server and worker process starts with: the `ownproof` bin's
 * shebang and `npm start` pass them (node-flags.test.ts keeps both equal to this list), and the
 * HTTP benchmark starts its targets with them. Set them yourself (e.g. `NODE_OPTIONS`) when starting
 * `node bin/ownproof.js` some other way.
 *
 * `--max-semi-space-size=32` (MiB; Node 20's default is 16): a request allocates a few KiB of
 * short-lived objects, and with 50 requests in flight a 16 MiB young generation is collected
 * often enough that many of them live through two collections and are copied into the old
 * generation, whose collections are far costlier. Doubling it made the authenticated GET of
 * `npm run bench -- http` ~12 % faster (12 of 12 paired rounds) for ~32 MiB more memory at most.
 */
export const SERVICE_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=32'];
