import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TLS_FAILURES, tlsFailure } from './tls-failure.js';

const webhooksDoc = readFileSync(new URL('../../../docs/webhooks.md', import.meta.url), 'utf8');

// The errors as Node 20 (OpenSSL 3.0) raises them; the delivery tests meet the first and the
// self-signed one for real. Messages keep OpenSSL's shape, with the build-specific parts elided.
const OPENSSL = (reason: string) =>
  `write EPROTO 80…:error:0A000…:SSL routines:ssl3_read_bytes:${reason}:../deps/openssl/openssl/ssl/record/rec_layer_s3.c:1601:\n`;

describe('tlsFailure', () => {
  it.each([
    ['EPROTO', OPENSSL('wrong version number'), TLS_FAILURES.notTls],
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'wrong version number', TLS_FAILURES.notTls],
    ['ERR_SSL_PACKET_LENGTH_TOO_LONG', 'packet length too long', TLS_FAILURES.notTls],
    ['EPROTO', `${OPENSSL('sslv3 alert handshake failure')}SSL alert number 40`, TLS_FAILURES.refused],
    ['EPROTO', `${OPENSSL('tlsv1 alert protocol version')}SSL alert number 70`, TLS_FAILURES.refused],
    ['ERR_SSL_TLSV1_ALERT_INTERNAL_ERROR', 'tlsv1 alert internal error', TLS_FAILURES.refused],
    ['CERT_HAS_EXPIRED', 'certificate has expired', TLS_FAILURES.expired],
    ['CERT_NOT_YET_VALID', 'certificate is not yet valid', TLS_FAILURES.notYetValid],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate', TLS_FAILURES.selfSigned],
    ['SELF_SIGNED_CERT_IN_CHAIN', 'self-signed certificate in certificate chain', TLS_FAILURES.untrusted],
    ['UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'unable to get local issuer certificate', TLS_FAILURES.untrusted],
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'unable to verify the first certificate', TLS_FAILURES.untrusted],
    [
      'ERR_TLS_CERT_ALTNAME_INVALID',
      "Hostname/IP does not match certificate's altnames: Host: hooks.example.com. is not in the cert's altnames: DNS:example.net",
      TLS_FAILURES.wrongHost,
    ],
    ['CERT_REVOKED', 'certificate revoked', TLS_FAILURES.invalidCertificate],
    ['INVALID_PURPOSE', 'unsupported certificate purpose', TLS_FAILURES.invalidCertificate],
    ['EPROTO', OPENSSL('decryption failed or bad record mac'), TLS_FAILURES.failed],
    ['ERR_SSL_UNSUPPORTED_PROTOCOL', 'unsupported protocol', TLS_FAILURES.failed],
  ])('describes %s (%j) as %j', (code, message, expected) => {
    expect(tlsFailure(Object.assign(new Error(message), { code }))).toBe(expected);
  });

  it.each([
    ['ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:4000'],
    ['ECONNRESET', 'Client network socket disconnected before secure TLS connection was established'],
    ['HPE_INVALID_CONSTANT', 'Parse Error: Expected HTTP/'],
    [undefined, 'something else'],
  ])('leaves %s, which is not a TLS failure, to the caller', (code, message) => {
    expect(tlsFailure(Object.assign(new Error(message), { code }))).toBeUndefined();
  });

  it('documents every reason in docs/webhooks.md', () => {
    for (const reason of Object.values(TLS_FAILURES)) expect(webhooksDoc, reason).toContain(`\`${reason}\``);
  });
});
