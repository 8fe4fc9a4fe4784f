import { describe, expect, it } from 'vitest';
import { newSecret } from '../crypto/random.js';
import { SECRET_KINDS, type SecretKind } from '../crypto/secret-kinds.js';
import { newWebhookSecret } from '../webhooks/signature.js';
import { createLogger, redactSecrets } from './logging.js';

describe('secret redaction in logs', () => {
  it.each([
    ['/connect/cs_test_AbCdEf0123456789AbCdEf0123456789/providers', '/connect/cs_test_[redacted]/providers'],
    ['Bearer sk_live_AbCdEf0123456789AbCdEf0123456789', 'Bearer sk_live_[redacted]'],
    ['secret whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw+/sU=', 'secret whsec_[redacted]'],
    ['/portal/sign-in/pl_AbCdEf0123456789AbCdEf0123456789', '/portal/sign-in/pl_[redacted]'],
    ['ownproof_portal_session=ps_AbCdEf0123456789AbCdEf0123456789', 'ownproof_portal_session=ps_[redacted]'],
    ['/connect/oauth/callback?state=abc-_123&code=xyz', '/connect/oauth/callback?state=[redacted]&code=[redacted]'],
    ['no secrets here: skate_test_1, steps_done, apply_x', 'no secrets here: skate_test_1, steps_done, apply_x'],
  ])('%s', (input, output) => {
    expect(redactSecrets(input)).toBe(output);
  });

  it.each(
    Object.entries(SECRET_KINDS).flatMap(([name, kind]: [string, SecretKind]) =>
      kind.alphabet === 'base62' ? (kind.prefixes ?? []).map((prefix) => [name, prefix]) : [],
    ),
  )('scrubs a minted %s (%s_…) from any text', (_name, prefix) => {
    const secret = newSecret(prefix as Parameters<typeof newSecret>[0]);
    expect(redactSecrets(`GET /x/${secret}/y failed: ${secret}.`)).toBe(`GET /x/${prefix}_[redacted]/y failed: ${prefix}_[redacted].`);
  });

  it('scrubs a minted webhook secret (base64, whsec_…) from any text', () => {
    // A fixed one with every base64 character class, and fresh ones.
    for (const secret of ['whsec_a+b/c=', ...Array.from({ length: 20 }, newWebhookSecret)]) {
      expect(redactSecrets(`sign with ${secret} now`)).toBe('sign with whsec_[redacted] now');
    }
  });

  it('gives the worker and the mailer a logger that scrubs as the app does (errors, listed fields)', () => {
    const lines: string[] = [];
    const log = createLogger('info', { write: (line: string) => void lines.push(line) });
    const link = newSecret('pl');
    log.warn(
      { err: new Error(`could not send /portal/sign-in/${link}`), connection: { apiKey: 'exchange-key-123' } },
      'job failed; will retry',
    );
    const text = lines.join('');
    expect(text).toContain('pl_[redacted]');
    expect(text).not.toContain(link);
    expect(text).not.toContain('exchange-key-123');
  });
});
