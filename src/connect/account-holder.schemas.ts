import { Type, type Static } from '@sinclair/typebox';
import { MESSAGE_KEYWORD } from '../platform/http/validation.js';
import { Timestamp } from '../platform/http/schemas.js';

/** Client-defined key/value pairs, the same rules as Stripe's metadata. */
export const Metadata = Type.Record(Type.String(), Type.String({ maxLength: 500 }), {
  maxProperties: 50,
  propertyNames: { minLength: 1, maxLength: 40 },
  description: 'Up to 50 keys (1–40 characters) with string values of up to 500 characters.',
  [MESSAGE_KEYWORD]: 'must be an object of at most 50 keys (each 1 to 40 characters) with string values',
});

const Email = Type.String({
  format: 'email',
  maxLength: 254,
  description: 'E-mail address where the account holder receives access requests.',
  examples: ['ada@example.com'],
});
const Name = Type.String({ minLength: 1, maxLength: 200, description: 'Full name, shown in e-mails and the portal.' });
const ExternalRef = Type.String({
  minLength: 1,
  maxLength: 255,
  description: 'Your own identifier for this person; unique per client and mode.',
});

export const AccountHolder = Type.Object(
  {
    id: Type.String({ description: 'Unique identifier, prefixed `ah_`.', examples: ['ah_3Xk9V1c0aQeWmZ7rT2yB5n'] }),
    object: Type.Literal('account_holder'),
    email: Type.String(),
    name: Type.Union([Type.String(), Type.Null()]),
    external_ref: Type.Union([Type.String(), Type.Null()]),
    metadata: Type.Record(Type.String(), Type.String()),
    livemode: Type.Boolean({ description: 'true for live mode, false for test mode.' }),
    created_at: Timestamp('When it was created (Unix seconds).'),
    updated_at: Timestamp('When it last changed (Unix seconds).'),
  },
  { $id: 'AccountHolder', title: 'Account holder', description: 'A person who connects accounts or shares claims.' },
);
export type AccountHolder = Static<typeof AccountHolder>;

export const CreateAccountHolderBody = Type.Object(
  {
    email: Email,
    name: Type.Optional(Name),
    external_ref: Type.Optional(ExternalRef),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
export type CreateAccountHolderInput = Static<typeof CreateAccountHolderBody>;

export const UpdateAccountHolderBody = Type.Object(
  {
    email: Type.Optional(Email),
    name: Type.Optional(Type.Union([Name, Type.Null()], { description: 'New name, or null to remove it.' })),
    external_ref: Type.Optional(Type.Union([ExternalRef, Type.Null()], { description: 'New reference, or null to remove it.' })),
    metadata: Type.Optional(
      Type.Record(Type.String(), Type.String({ maxLength: 500 }), {
        maxProperties: 50,
        propertyNames: { minLength: 1, maxLength: 40 },
        description: 'Keys to set; a key set to "" is removed. Keys not sent are kept.',
        [MESSAGE_KEYWORD]: 'must be an object of at most 50 keys (each 1 to 40 characters) with string values',
      }),
    ),
  },
  { additionalProperties: false },
);
export type UpdateAccountHolderInput = Static<typeof UpdateAccountHolderBody>;
