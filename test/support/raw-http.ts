import { connect, type Socket } from 'node:net';

export interface RawResponse {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: string;
}

/** What came back on one connection: the responses in order, and whether the server closed it. */
export interface RawExchange {
  responses: RawResponse[];
  closedByServer: boolean;
}

/**
 * Sends bytes exactly as given on a new connection and reads until the server closes it (or
 * `waitMs` passes). For requests `inject` cannot make: broken framing, oversized heads, stalls.
 */
export function rawExchange(port: number, bytes: string | Buffer, options: { waitMs?: number } = {}): Promise<RawExchange> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect({ host: '127.0.0.1', port });
    const finish = (closedByServer: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      try {
        resolve({ responses: parseResponses(Buffer.concat(chunks)), closedByServer });
      } catch (error) {
        reject(error as Error);
      }
    };
    const timer = setTimeout(() => finish(false), options.waitMs ?? 5000);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('end', () => finish(true));
    // The server may close with unread request bytes still queued, which resets the connection
    // after its response: that still counts as closing it.
    socket.on('error', () => finish(true));
    socket.write(bytes);
  });
}

/** Opens a connection, sends bytes and hands back the socket (for a client that stalls or resets). */
export function rawConnection(port: number, bytes: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port }, () => socket.write(bytes, () => resolve(socket)));
    socket.on('error', reject);
  });
}

/** Splits HTTP/1.1 responses framed by Content-Length (every error response we send is). */
function parseResponses(data: Buffer): RawResponse[] {
  const responses: RawResponse[] = [];
  let rest = data;
  while (rest.length > 0) {
    const headEnd = rest.indexOf('\r\n\r\n');
    if (headEnd === -1) throw new Error(`incomplete response head: ${JSON.stringify(rest.toString('latin1'))}`);
    const [statusLine = '', ...lines] = rest.subarray(0, headEnd).toString('latin1').split('\r\n');
    const status = /^HTTP\/1\.1 (\d{3}) /.exec(statusLine)?.[1];
    if (!status) throw new Error(`not an HTTP/1.1 status line: ${JSON.stringify(statusLine)}`);
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length']);
    if (!Number.isInteger(length)) throw new Error(`response without a Content-Length: ${statusLine}`);
    const bodyStart = headEnd + 4;
    if (rest.length < bodyStart + length) throw new Error(`response body shorter than its Content-Length: ${statusLine}`);
    responses.push({ status: Number(status), headers, body: rest.subarray(bodyStart, bodyStart + length).toString('utf8') });
    rest = rest.subarray(bodyStart + length);
  }
  return responses;
}
