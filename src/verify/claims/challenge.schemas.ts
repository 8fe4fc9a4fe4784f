import { Type, type Static } from '@sinclair/typebox';

/**
 * What a challenge asks the person to prove (`verify_challenges.subject`): one address, or a wallet
 * as an output descriptor. @ownproof/verify words the challenge from its own `ChallengeSubject`
 * type and cannot import the service, so that type stays the source: claim.schemas.test.ts holds
 * this schema's type equal to it (checked by tsc in npm run lint).
 */
export const ChallengeSubject = Type.Union([
  Type.Object({ type: Type.Literal('address'), address: Type.String() }),
  Type.Object({ type: Type.Literal('wallet'), descriptor: Type.String() }),
]);
export type ChallengeSubject = Static<typeof ChallengeSubject>;

/**
 * Where a challenge was started (`verify_challenges.origin`): its pages find it again only there.
 * A claim proven in a connect session is shared when the session completes, with what the session
 * asked for.
 */
export const ChallengeOrigin = Type.Union([
  Type.Object({
    kind: Type.Literal('connect_session'),
    session_id: Type.String(),
    /** The connected account the pages prove (the pages always set it; tests that call the service need not). */
    account_id: Type.Optional(Type.String()),
  }),
  Type.Object({ kind: Type.Literal('portal') }),
]);
export type ChallengeOrigin = Static<typeof ChallengeOrigin>;
