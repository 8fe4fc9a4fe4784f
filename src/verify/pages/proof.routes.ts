import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { signWithSandboxWallet } from '../../bitcoin/sandbox/sandbox-signer.js';
import type { AppContext } from '../../platform/context.js';
import { firstString } from '../../platform/web/form-values.js';
import type { PageKit } from '../../platform/web/page-surface.js';
import { sandboxPay } from '../../bitcoin/sandbox/sandbox-chain.js';
import { checkDeposit, findHolderChallenge, startDepositChallenge, startSignatureChallenge, submitSignature, type SubmitOutcome } from '../proof.service.js';
import type { ChallengeRow } from '../verify.table.js';
import { challengeEndedPage, challengePage, depositPage, proofUnavailablePage, unknownChallengePage } from './proof-pages.js';
import type { ProofHost, ProofPlace } from './proof-place.js';

const PAGE = { schema: { hide: true } } as const;

/** What the surface writes with the claim, in its transaction. */
function finishOptions(place: ProofPlace) {
  return place.alsoInTransaction ? { alsoInTransaction: place.alsoInTransaction } : {};
}

interface ChallengeParams {
  challenge: string;
}

/**
 * The ownership proof pages, mounted by a surface under a prefix of its own (the connect flow:
 * `/{secret}/accounts/{account}/prove`), which resolves who proves what (`host`):
 *
 * POST /                         start a challenge for the place's subject (`method=deposit`: a
 *                                deposit proof instead of a signature), then show it
 * GET  /{challenge}              the message, how to sign it, the signature form; or the deposit to make
 * POST /{challenge}              check a pasted signature: the claim, or why not
 * POST /{challenge}/check        look for the deposit on chain: the claim, or "not yet"
 * POST /{challenge}/sandbox      test mode: the sandbox wallet signs the message, or makes the deposit
 */
export function proofRoutes(host: ProofHost): FastifyPluginAsync<{ kit: PageKit }> {
  return async (app, { kit }) => {
    const ctx: AppContext = app.ctx;
    const form = { ...PAGE, preHandler: app.csrfProtection };
    /** The challenge page takes the kit's script for its copy button; it works without. */
    const send = (reply: FastifyReply, place: ProofPlace, page: Parameters<PageKit['send']>[1]) => kit.send(reply, page, { ...place.sendOptions, script: true });

    async function placeAndChallenge(request: FastifyRequest<{ Params: ChallengeParams }>, reply: FastifyReply) {
      const place = await host.resolve(request, reply);
      if (!place) return undefined;
      const challenge = await findHolderChallenge(ctx, place.accountHolderId, request.params.challenge);
      if (!challenge) {
        send(reply, place, unknownChallengePage(place));
        return undefined;
      }
      return { place, challenge };
    }

    function answer(reply: FastifyReply, place: ProofPlace, challenge: ChallengeRow, outcome: SubmitOutcome) {
      if (outcome.ok) return reply.redirect(place.doneUrl, 303);
      if (outcome.reason === 'not_paid') return send(reply, place, depositPage({ place, challenge, csrfToken: reply.generateCsrf(), notYet: true }));
      if (outcome.reason !== 'invalid_signature') return send(reply, place, challengeEndedPage(place, reply.generateCsrf(), outcome.reason, challenge.method));
      if (outcome.attemptsLeft === 0) return send(reply, place, challengeEndedPage(place, reply.generateCsrf(), 'too_many_attempts'));
      return send(reply, place, challengePage({ place, challenge, csrfToken: reply.generateCsrf(), error: { message: outcome.problem.message, attemptsLeft: outcome.attemptsLeft } }));
    }

    app.post('/', form, async (request, reply) => {
      const place = await host.resolve(request, reply);
      if (!place) return reply;
      const proofRequest = { scope: place.scope, accountHolderId: place.accountHolderId, requesterName: place.requesterName, origin: place.origin };
      const deposit = firstString((request.body as Record<string, unknown> | undefined)?.method) === 'deposit';
      const started = await (deposit ? startDepositChallenge : startSignatureChallenge)(ctx, proofRequest, place.subject);
      if (!started.ok) return send(reply, place, proofUnavailablePage(place, started.message));
      return reply.redirect(`${place.base}/${started.challenge.id}`, 303);
    });

    app.get<{ Params: ChallengeParams }>('/:challenge', PAGE, async (request, reply) => {
      const found = await placeAndChallenge(request, reply);
      if (!found) return reply;
      const { place, challenge } = found;
      const ended = challenge.status === 'failed' ? 'too_many_attempts' : challenge.status !== 'open' ? (challenge.status === 'used' ? 'closed' : 'expired') : challenge.expires_at <= Math.floor(ctx.clock.now() / 1000) ? 'expired' : undefined;
      if (ended) return send(reply, place, challengeEndedPage(place, reply.generateCsrf(), ended, challenge.method));
      if (challenge.method === 'deposit') return send(reply, place, depositPage({ place, challenge, csrfToken: reply.generateCsrf() }));
      return send(reply, place, challengePage({ place, challenge, csrfToken: reply.generateCsrf() }));
    });

    app.post<{ Params: ChallengeParams }>('/:challenge/check', form, async (request, reply) => {
      const found = await placeAndChallenge(request, reply);
      if (!found) return reply;
      const { place, challenge } = found;
      return answer(reply, place, challenge, await checkDeposit(ctx, challenge, finishOptions(place)));
    });

    app.post<{ Params: ChallengeParams }>('/:challenge', form, async (request, reply) => {
      const found = await placeAndChallenge(request, reply);
      if (!found) return reply;
      const { place, challenge } = found;
      const signature = firstString((request.body as Record<string, unknown> | undefined)?.signature) ?? '';
      if (signature.trim() === '') {
        return send(reply, place, challengePage({ place, challenge, csrfToken: reply.generateCsrf(), error: { message: 'Paste the signature your wallet made.' } }));
      }
      return answer(reply, place, challenge, await submitSignature(ctx, challenge, signature, finishOptions(place)));
    });

    app.post<{ Params: ChallengeParams }>('/:challenge/sandbox', form, async (request, reply) => {
      const found = await placeAndChallenge(request, reply);
      if (!found) return reply;
      const { place, challenge } = found;
      // The sandbox keys are public: signing with them can only ever prove test-mode claims.
      if (place.scope.mode !== 'test') return send(reply, place, unknownChallengePage(place));
      if (challenge.method === 'deposit') {
        const source = ctx.chains.forMode('test');
        const paid = source ? sandboxPay(source, challenge.signing_address, challenge.deposit_address as string, BigInt(challenge.deposit_amount as string)) : undefined;
        if (!paid?.ok) request.log.info({ reason: paid?.reason }, 'sandbox deposit not made');
        return answer(reply, place, challenge, await checkDeposit(ctx, challenge, finishOptions(place)));
      }
      const signed = signWithSandboxWallet(challenge.signing_address, challenge.message);
      if (!signed.ok) {
        return send(reply, place, challengePage({ place, challenge, csrfToken: reply.generateCsrf(), error: { message: `The sandbox wallet cannot sign this: ${signed.reason}.` } }));
      }
      return answer(reply, place, challenge, await submitSignature(ctx, challenge, signed.signature, finishOptions(place)));
    });
  };
}
