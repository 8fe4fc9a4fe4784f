import type { Scope } from '../scope.js';
import { ApiError } from './errors.js';

/**
 * Where every domain mounts its test helpers (`/v1/test_helpers/…`): routes that act as the
 * account holder would on the pages, for test mode only (docs/sandbox.md, "Test helpers").
 */
export const TEST_HELPERS_PATH = '/test_helpers';

/** The OpenAPI tag every test helper carries. */
export const TEST_HELPERS_TAG = 'Test helpers';

/** How every test helper's description starts. */
export const TEST_MODE_ONLY = 'Test mode only (a live key gets 403 `test_mode_only`).';

/**
 * Refuses a live key (403 `test_mode_only`). A helper calls it once it has found the object in its
 * path in the caller's scope, so another client's id, or the other mode's, is a 404 here as on
 * every route, and the 403 only ever speaks of the caller's own live objects.
 */
export function requireTestMode(scope: Scope): void {
  if (scope.mode !== 'test') throw new ApiError('test_mode_only');
}
