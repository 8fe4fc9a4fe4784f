import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError, FastifyInstance } from 'fastify';
import { ApiError, errorBody, type ErrorCode } from './errors.js';
import { API_SECURITY_HEADERS } from './security-headers.js';

/** Node's HTTP server keeps the response being written on the socket (the others queue behind it). */
type HttpSocket = Socket & { _httpMessage?: ServerResponse | null };

/**
 * Node's parser errors (llhttp's `HPE_…` codes) and request timeouts, by the API error they are;
 * undefined when the client went away. A connection that ends inside a request
 * (HPE_INVALID_EOF_STATE) is a client that hung up, or reset the connection right after sending
 * (Node then reads the reset as the end of the stream): there is no one to answer.
 */
function errorCodeFor(code: string | undefined): ErrorCode | undefined {
  if (code === 'HPE_HEADER_OVERFLOW') return 'headers_too_large';
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return 'request_timeout';
  if (code === 'HPE_INVALID_EOF_STATE') return undefined;
  if (code?.startsWith('HPE_')) return 'request_malformed';
  return undefined;
}

const SECURITY_HEADER_LINES = Object.entries(API_SECURITY_HEADERS)
  .map(([name, value]) => `${name}: ${value}\r\n`)
  .join('');

function rawResponse(error: ApiError, requestId: string): string {
  const body = JSON.stringify(errorBody(error, requestId));
  return (
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\n` +
    `date: ${new Date().toUTCString()}\r\n` +
    'content-type: application/json; charset=utf-8\r\n' +
    `content-length: ${Buffer.byteLength(body)}\r\n` +
    'connection: close\r\n' +
    `request-id: ${requestId}\r\n` +
    `${SECURITY_HEADER_LINES}\r\n${body}`
  );
}

/**
 * Runs `then` once the responses to the requests received in full before the broken bytes are
 * sent. Such a request has run (it may have created something), so its answer must reach the
 * client ahead of ours, not be cut off by it. A request the broken bytes are part of never got
 * its body, so it has nothing to wait for.
 */
function afterCompleteRequests(socket: HttpSocket, then: () => void): void {
  const current = socket._httpMessage;
  if (!current || !current.req.complete) {
    then();
    return;
  }
  // Node's own 'finish' listener, added first, has already put the next queued response on the socket.
  current.once('finish', () => afterCompleteRequests(socket, then));
}

/**
 * Fastify's `clientErrorHandler`: answers requests Node's HTTP parser refused (broken framing,
 * a bad header, a head over 16 KiB, headers that never finish arriving). No request object exists
 * and no hook runs, so the whole HTTP/1.1 response is written here: our error body, a request id,
 * the API's security headers and `Connection: close`, since nothing after the broken bytes can be
 * trusted. Node's own guard (lib/_http_server.js, socketOnError) still applies: nothing is written
 * into a response that is half sent.
 *
 * When the client went away (ECONNRESET, EPIPE, a connection that ends mid-request) the socket is
 * only closed, without a log line: nothing can be answered and nothing is wrong on our side.
 * Refusals are logged in one line at info, like any rejected request, never with a stack or the
 * bytes received (they may hold an API key).
 */
export function clientErrorHandler(nextRequestId: () => string) {
  // The parser repeats its error for every later chunk of the same connection: one answer each.
  const answering = new WeakSet<Socket>();
  return function answerClientError(this: FastifyInstance, error: ConnectionError, socket: HttpSocket): void {
    if (answering.has(socket)) return;
    const code = errorCodeFor(error.code);
    if (code === undefined || !socket.writable) {
      socket.destroy();
      return;
    }
    answering.add(socket);
    const apiError = new ApiError(code);
    const requestId = nextRequestId();
    this.log.info({ request_id: requestId, status: apiError.status, code, reason: error.code }, 'request rejected');
    afterCompleteRequests(socket, () => {
      const current = socket._httpMessage;
      if (!socket.writable || (current && current.headersSent && !current.writableEnded)) {
        socket.destroy();
        return;
      }
      // Closed once written: Node keeps an HTTP connection half open after `end()`.
      socket.end(rawResponse(apiError, requestId), () => socket.destroy());
    });
  };
}
