import { Type, type Static } from '@sinclair/typebox';
import { MAX_ID_LENGTH } from '../../platform/http/schemas.js';

/** Most claims one approval names (the portal's picker has no more in practice). */
export const MAX_APPROVED_CLAIMS = 100;

export const ApproveAccessRequestBody = Type.Object(
  {
    claim_ids: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: MAX_ID_LENGTH }), {
        minItems: 1,
        maxItems: MAX_APPROVED_CLAIMS,
        uniqueItems: true,
        description:
          'The claims the account holder picks, as in the portal: each an active claim their current e-mail address proved as this ' +
          'request’s account holder, in test mode. Any other (another holder’s, another client’s, revoked, unknown) is 400 ' +
          '`parameter_invalid` naming it. Omitted: every claim they could pick.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ApproveAccessRequestInput = Static<typeof ApproveAccessRequestBody>;
