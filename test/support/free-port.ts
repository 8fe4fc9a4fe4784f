import { createServer, type AddressInfo } from 'node:net';

/**
 * A port on 127.0.0.1 nothing listens on: taken from the system, then let go. Free when asked;
 * nothing else on the machine is expected to take it before the caller uses it.
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
