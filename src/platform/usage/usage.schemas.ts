import { Type, type Static } from '@sinclair/typebox';
import { PageQueryFields } from '../http/page.schemas.js';
import { Timestamp } from '../http/schemas.js';

/**
 * What the service bills, one type per billable use; kept here with the other catalogues of the
 * API (error codes, event types), so the list is reviewed in one place.
 * - `statement_pdf`: the first PDF generated for a statement (either layout); later downloads are free.
 */
export const USAGE_TYPES = ['statement_pdf'] as const;
export type UsageType = (typeof USAGE_TYPES)[number];

export const UsageRecord = Type.Object(
  {
    id: Type.String({ description: 'Unique identifier, prefixed `ur_`.' }),
    object: Type.Literal('usage_record'),
    type: Type.Union(
      USAGE_TYPES.map((t) => Type.Literal(t)),
      {
        description:
          'What was used. `statement_pdf`: the first PDF of a statement (either format); later downloads of either format are free.',
      },
    ),
    resource_id: Type.String({
      description: 'The object it was for (for `statement_pdf`, the statement `stmt_…`). One record per type and object, ever.',
    }),
    quantity: Type.Integer({ minimum: 1, description: 'Units used.' }),
    created_at: Timestamp('When it was used (Unix seconds).'),
    livemode: Type.Boolean({ description: 'Whether it was in live mode; test-mode use is recorded the same way.' }),
  },
  { $id: 'UsageRecord', title: 'Usage record', description: 'One billable use of the service.' },
);
export type UsageRecord = Static<typeof UsageRecord>;

export const UsageListQuery = Type.Object(
  {
    ...PageQueryFields,
    type: Type.Optional(
      Type.Union(
        USAGE_TYPES.map((t) => Type.Literal(t)),
        { description: 'Only records of this type.' },
      ),
    ),
  },
  { additionalProperties: false },
);
export type UsageListQuery = Static<typeof UsageListQuery>;
