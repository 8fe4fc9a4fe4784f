/**
 * Every reason a delivery attempt can give for a failed TLS connection: a fixed list of plain
 * words, documented for integrators (docs/webhooks.md, "Delivery attempts"). OpenSSL's own text
 * (`EPROTO: write EPROTO 80…:error:0A00010B:SSL routines:ssl3_get_record:wrong version number:…`)
 * says nothing to them and shows our build's internals, so it goes to the worker's log only.
 */
export const TLS_FAILURES = {
  notTls: 'tls_error: the endpoint did not speak TLS',
  refused: 'tls_error: the endpoint refused the TLS handshake',
  expired: 'tls_error: the certificate has expired',
  notYetValid: 'tls_error: the certificate is not valid yet',
  selfSigned: 'tls_error: the certificate is self-signed',
  untrusted: 'tls_error: the certificate is not issued by a trusted authority',
  wrongHost: 'tls_error: the certificate does not match the host name',
  invalidCertificate: 'tls_error: the certificate is invalid',
  failed: 'tls_error: the TLS handshake failed',
} as const;

/**
 * Certificate verification failures, by the code Node gives them: OpenSSL's X509_V_ERR_* names
 * (Node's `X509ErrorCode`, including its `UNSPECIFIED`) and Node's own host name check.
 */
const CERTIFICATE_FAILURES: Record<string, string> = {
  CERT_HAS_EXPIRED: TLS_FAILURES.expired,
  CERT_NOT_YET_VALID: TLS_FAILURES.notYetValid,
  DEPTH_ZERO_SELF_SIGNED_CERT: TLS_FAILURES.selfSigned,
  // An untrusted root sent along, an unknown issuer, or intermediates the server does not send.
  SELF_SIGNED_CERT_IN_CHAIN: TLS_FAILURES.untrusted,
  UNABLE_TO_GET_ISSUER_CERT: TLS_FAILURES.untrusted,
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: TLS_FAILURES.untrusted,
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: TLS_FAILURES.untrusted,
  CERT_UNTRUSTED: TLS_FAILURES.untrusted,
  ERR_TLS_CERT_ALTNAME_INVALID: TLS_FAILURES.wrongHost,
  HOSTNAME_MISMATCH: TLS_FAILURES.wrongHost,
  ...Object.fromEntries(
    [
      'UNABLE_TO_GET_CRL',
      'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
      'UNABLE_TO_DECRYPT_CRL_SIGNATURE',
      'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY',
      'CERT_SIGNATURE_FAILURE',
      'CRL_SIGNATURE_FAILURE',
      'CRL_NOT_YET_VALID',
      'CRL_HAS_EXPIRED',
      'ERROR_IN_CERT_NOT_BEFORE_FIELD',
      'ERROR_IN_CERT_NOT_AFTER_FIELD',
      'ERROR_IN_CRL_LAST_UPDATE_FIELD',
      'ERROR_IN_CRL_NEXT_UPDATE_FIELD',
      'OUT_OF_MEM',
      'CERT_CHAIN_TOO_LONG',
      'CERT_REVOKED',
      'INVALID_CA',
      'PATH_LENGTH_EXCEEDED',
      'INVALID_PURPOSE',
      'CERT_REJECTED',
      'UNSPECIFIED',
    ].map((code) => [code, TLS_FAILURES.invalidCertificate]),
  ),
};

/**
 * The plain reason for a TLS failure, or undefined when `error` is not one. OpenSSL protocol
 * errors reach Node as `EPROTO` (or `ERR_SSL_<REASON>`) with the reason only in the message text, so
 * that text is read here to tell a server that speaks plain HTTP, or one that sent an alert, from
 * other handshake failures; it is never returned.
 */
export function tlsFailure(error: { code?: string | undefined; message?: string }): string | undefined {
  const code = error.code ?? '';
  const certificate = CERTIFICATE_FAILURES[code];
  if (certificate !== undefined) return certificate;
  if (code !== 'EPROTO' && !/^ERR_(SSL|TLS)_/.test(code)) return undefined;
  const text = `${code} ${error.message ?? ''}`;
  // A plain HTTP answer read as a TLS record: "wrong version number" (OpenSSL 3.0), or "packet length too long".
  if (/wrong.version.number|packet.length.too.long/i.test(text)) return TLS_FAILURES.notTls;
  if (/alert/i.test(text)) return TLS_FAILURES.refused;
  return TLS_FAILURES.failed;
}
