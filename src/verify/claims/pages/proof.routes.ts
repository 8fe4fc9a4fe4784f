import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../../platform/context.js';
import { firstString, formValues } from '../../../platform/web/form-values.js';
import type { PageKit } from '../../../platform/web/page-surface.js';
import { sandboxPay } from '../../../bitcoin/sandbox/sandbox-chain.js';
import {
  checkDeposit,
  findPlacedChallenge,
  startDepositChallenge,
  startSignatureChallenge,
  submitSignature,
  type SubmitOutcome,
} from '../proof.service.js';
import { proveWithSandboxWallet } from '../sandbox-proof.service.js';
import type { ChallengeRow } from '../../verify.table.js';
import {
  challengeEndedPage,
  challengePage,
  depositPage,
  MAX_LABEL_LENGTH,
  proofUnavailablePage,
  subjectEntryPage,
  unknownChallengePage,
} from './proof-pages.js';
import type { ProofHost, ProofPlace } from './proof-place.js';

const PAGE = { schema: { hide: true } } as const;

/**
 * The proof pages' own script ("Sign with <browser wallet>"): a surface that mounts the pages lists
 * it in its `scripts`, and the challenge page asks for the surface's script.
 */
export const BROWSER_WALLET_SCRIPT = new URL('./browser-wallet.js', import.meta.url);

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
 * GET  /                         where the surface names no subject: the form to enter one (and a label)
 * POST /                         start a challenge for the place's subject, or the one entered
 *                                (`method=deposit`: a deposit proof instead of a signature), then show it
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
    const send = (reply: FastifyReply, place: ProofPlace, page: Parameters<PageKit['send']>[1]) =>
      kit.send(reply, page, { ...place.sendOptions, script: true });

    async function placeAndChallenge(request: FastifyRequest<{ Params: ChallengeParams }>, reply: FastifyReply) {
      const place = await host.resolve(request, reply);
      if (!place) return undefined;
      const challenge = await findPlacedChallenge(ctx, place, request.params.challenge);
      if (!challenge) {
        send(reply, place, unknownChallengePage(place));
        return undefined;
      }
      return { place, challenge };
    }

    function answer(reply: FastifyReply, place: ProofPlace, challenge: ChallengeRow, outcome: SubmitOutcome) {
      if (outcome.ok) return reply.redirect(place.doneUrl, 303);
      if (outcome.reason === 'not_paid')
        return send(reply, place, depositPage({ place, challenge, csrfToken: reply.generateCsrf(), notYet: true }));
      if (outcome.reason !== 'invalid_signature')
        return send(reply, place, challengeEndedPage(place, reply.generateCsrf(), outcome.reason, challenge));
      if (outcome.attemptsLeft === 0)
        return send(reply, place, challengeEndedPage(place, reply.generateCsrf(), 'too_many_attempts', challenge));
      return send(
        reply,
        place,
        challengePage({
          place,
          challenge,
          csrfToken: reply.generateCsrf(),
          error: { message: outcome.problem.message, attemptsLeft: outcome.attemptsLeft },
        }),
      );
    }

    /** Where the person names what to prove (only where the surface does not say). */
    app.get('/', PAGE, async (request, reply) => {
      const place = await host.resolve(request, reply);
      if (!place) return reply;
      if (place.subject !== undefined) return reply.redirect(place.back.href, 303);
      return kit.send(reply, subjectEntryPage(place, reply.generateCsrf()), place.sendOptions);
    });

    app.post('/', form, async (request, reply) => {
      const place = await host.resolve(request, reply);
      if (!place) return reply;
      const fields = formValues(request.body, ['method', 'subject', 'label']);
      const entered = place.subject === undefined;
      const subject = place.subject ?? (fields.subject ?? '').trim();
      const label = entered ? (fields.label ?? '').trim() : '';
      const retry = (field: 'subject' | 'label', message: string) =>
        kit.send(reply, subjectEntryPage(place, reply.generateCsrf(), { subject, label, error: { field, message } }), place.sendOptions);
      if (entered && subject === '') return retry('subject', 'Enter an address, an extended public key or a descriptor.');
      // The label goes into the signed receipt: plain text of one line (no control characters).
      if (label.length > MAX_LABEL_LENGTH || /\p{Cc}/u.test(label))
        return retry('label', `Give a name of at most ${MAX_LABEL_LENGTH} characters, on one line.`);
      const proofRequest = {
        scope: place.scope,
        accountHolderId: place.accountHolderId,
        requesterName: place.requesterName,
        origin: place.origin,
        controller: place.controller,
        label: label === '' ? null : label,
      };
      const started = await (fields.method === 'deposit' ? startDepositChallenge : startSignatureChallenge)(ctx, proofRequest, subject);
      if (!started.ok)
        return entered ? retry('subject', started.message) : send(reply, place, proofUnavailablePage(place, started.message));
      return reply.redirect(`${place.base}/${started.challenge.id}`, 303);
    });

    app.get<{ Params: ChallengeParams }>('/:challenge', PAGE, async (request, reply) => {
      const found = await placeAndChallenge(request, reply);
      if (!found) return reply;
      const { place, challenge } = found;
      const ended =
        challenge.status === 'failed'
          ? 'too_many_attempts'
          : challenge.status !== 'open'
            ? challenge.status === 'used'
              ? 'closed'
              : 'expired'
            : challenge.expires_at <= Math.floor(ctx.clock.now() / 1000)
              ? 'expired'
              : undefined;
      if (ended) return send(reply, place, challengeEndedPage(place, reply.generateCsrf(), ended, challenge));
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
        return send(
          reply,
          place,
          challengePage({ place, challenge, csrfToken: reply.generateCsrf(), error: { message: 'Paste the signature your wallet made.' } }),
        );
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
        const paid = source
          ? sandboxPay(
              source,
              challenge.signing_address,
              challenge.deposit_address as string,
              BigInt(challenge.deposit_amount as string),
              ctx.clock,
            )
          : undefined;
        if (!paid?.ok) request.log.info({ reason: paid?.reason }, 'sandbox deposit not made');
        return answer(reply, place, challenge, await checkDeposit(ctx, challenge, finishOptions(place)));
      }
      const outcome = await proveWithSandboxWallet(ctx, challenge, finishOptions(place));
      if (!outcome.ok && outcome.reason === 'sandbox_cannot_sign') {
        return send(
          reply,
          place,
          challengePage({ place, challenge, csrfToken: reply.generateCsrf(), error: { message: outcome.message } }),
        );
      }
      return answer(reply, place, challenge, outcome);
    });
  };
}
