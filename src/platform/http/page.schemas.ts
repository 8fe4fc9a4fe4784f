import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { MAX_ID_LENGTH } from './schemas.js';

/** How many objects a list returns when the request does not say (`limit`). */
export const DEFAULT_PAGE_SIZE = 10;

/** Query parameters every list endpoint takes. */
export const PageQueryFields = {
  // Optional with a default: validation fills it in for a request without it (Ajv `useDefaults`),
  // and the OpenAPI document shows it as optional with that default.
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 100, default: DEFAULT_PAGE_SIZE, description: 'How many objects to return, 1 to 100.' }),
  ),
  starting_after: Type.Optional(
    Type.String({ maxLength: MAX_ID_LENGTH, description: 'Cursor: an object id; returns the objects that come after it (older ones).' }),
  ),
  ending_before: Type.Optional(
    Type.String({ maxLength: MAX_ID_LENGTH, description: 'Cursor: an object id; returns the objects that come before it (newer ones).' }),
  ),
};
export const PageQuery = Type.Object(PageQueryFields, { additionalProperties: false });
export type PageQueryInput = Static<typeof PageQuery>;

/**
 * `{object: "list", data, has_more, url}` around an item schema. `path` is the list's path as the
 * OpenAPI document writes it (`/v1/events`, `/v1/connect/accounts/{id}/transactions`): a fixed
 * path is documented as the exact value, a path with ids as what it becomes once they are filled
 * in. Handlers build the object with `listResponse`, which fills them from the request.
 */
export function ListOf<T extends TSchema>(item: T, path: string) {
  return Type.Object({
    object: Type.Literal('list'),
    data: Type.Array(item),
    has_more: Type.Boolean({ description: 'Whether more objects lie beyond this page in the direction of travel.' }),
    url: path.includes('{')
      ? Type.String({ description: `This list's path: \`${path}\` with the ids filled in.` })
      : Type.Unsafe<string>({ type: 'string', const: path, description: "This list's path." }),
  });
}
