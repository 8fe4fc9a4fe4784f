import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';

/** A message as an SMTP server received it: the envelope and the raw bytes of DATA. */
export interface ReceivedMail {
  envelope: { from: string; to: string[] };
  raw: string;
}

export interface SmtpSink {
  port: number;
  /** `smtp://127.0.0.1:PORT` (with a login when given): an SMTP_URL for this server. */
  url(login?: { user: string; pass: string }): string;
  received: ReceivedMail[];
  close(): Promise<void>;
}

/**
 * A real SMTP server (Nodemailer's `smtp-server`) on 127.0.0.1 that keeps what it receives.
 * Without STARTTLS (loopback needs none; `SMTP_URL` then sends in plain text), with a login when
 * `login` is given, refusing every recipient with `refuseRecipient` (`{ code: 550, text }`), or
 * only the addresses it lists in `only` (lower case; the others are taken).
 */
export async function startSmtpSink(
  options: {
    port?: number;
    login?: { user: string; pass: string };
    refuseRecipient?: { code: number; text: string; only?: readonly string[] };
  } = {},
): Promise<SmtpSink> {
  const received: ReceivedMail[] = [];
  const settings: SMTPServerOptions = {
    logger: false,
    disabledCommands: options.login ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    authOptional: !options.login,
    allowInsecureAuth: true,
    onAuth(auth, _session, callback) {
      if (options.login && auth.username === options.login.user && auth.password === options.login.pass)
        return callback(null, { user: auth.username });
      return callback(new Error('Invalid username or password'));
    },
    onRcptTo(address, _session, callback) {
      const only = options.refuseRecipient?.only;
      if (!options.refuseRecipient || (only && !only.includes(address.address.toLowerCase()))) return callback();
      return callback(Object.assign(new Error(options.refuseRecipient.text), { responseCode: options.refuseRecipient.code }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const from = session.envelope.mailFrom;
        received.push({
          envelope: { from: from ? from.address : '', to: session.envelope.rcptTo.map((r) => r.address) },
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  };
  const server = new SMTPServer(settings);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    url: (login) => `smtp://${login ? `${encodeURIComponent(login.user)}:${encodeURIComponent(login.pass)}@` : ''}127.0.0.1:${port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A parsed message: its headers (lower-case names, unfolded, encoded words decoded) and its text and HTML parts. */
export interface ParsedMail {
  headers: Map<string, string>;
  text: string | undefined;
  html: string | undefined;
}

/**
 * Reads a raw RFC 5322 message the way a mail app would, for the parts these tests need: header
 * unfolding, RFC 2047 encoded words, multipart/alternative, quoted-printable and base64. Written
 * here rather than taken from mailparser so the check does not share code with the nodemailer
 * that encoded the message.
 */
export function parseMail(raw: string): ParsedMail {
  const { headers, body } = splitHead(raw);
  const type = headers.get('content-type') ?? 'text/plain';
  const parsed: ParsedMail = { headers, text: undefined, html: undefined };
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  const parts = /^multipart\//i.test(type) && boundary ? multipartParts(body, boundary) : [{ headers, body }];
  for (const part of parts) {
    const partType = (part.headers.get('content-type') ?? 'text/plain').toLowerCase();
    // Line breaks travel as CRLF (RFC 5322); the text was written with \n.
    const content = decodeBody(part.body, part.headers.get('content-transfer-encoding') ?? '7bit').replace(/\r\n/g, '\n');
    if (partType.startsWith('text/plain')) parsed.text = content;
    if (partType.startsWith('text/html')) parsed.html = content;
  }
  return parsed;
}

function splitHead(raw: string): { headers: Map<string, string>; body: string } {
  const end = raw.indexOf('\r\n\r\n');
  const head = end === -1 ? raw : raw.slice(0, end);
  const body = end === -1 ? '' : raw.slice(end + 4);
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), decodeWords(line.slice(colon + 1).trim()));
  }
  return { headers, body };
}

function multipartParts(body: string, boundary: string): { headers: Map<string, string>; body: string }[] {
  const sections = body.split(`--${boundary}`);
  // Before the first delimiter is the preamble; from the closing `--boundary--` on, the epilogue.
  return sections
    .slice(1)
    .filter((section) => !section.startsWith('--'))
    .map((section) => splitHead(section.replace(/^\r\n/, '').replace(/\r\n$/, '')));
}

function decodeBody(body: string, encoding: string): string {
  switch (encoding.toLowerCase()) {
    case 'quoted-printable':
      return decodeQuotedPrintable(body);
    case 'base64':
      return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
    default:
      return body;
  }
}

function decodeQuotedPrintable(text: string): string {
  const bytes: number[] = [];
  const soft = text.replace(/=\r\n/g, '');
  for (let i = 0; i < soft.length; i++) {
    const hex = soft[i] === '=' ? /^[0-9A-Fa-f]{2}$/.exec(soft.slice(i + 1, i + 3))?.[0] : undefined;
    if (hex !== undefined) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(soft[i] as string, 'utf8'));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** RFC 2047: `=?UTF-8?Q?Zugang_f=C3=BCr?=` and `=?UTF-8?B?…?=`; white space between two encoded words is dropped. */
function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g, (_match, _charset: string, mode: string, text: string) =>
      mode.toUpperCase() === 'B' ? Buffer.from(text, 'base64').toString('utf8') : decodeQuotedPrintable(text.replace(/_/g, ' ')),
    );
}
