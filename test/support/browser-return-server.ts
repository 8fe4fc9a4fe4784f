import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Stands in for a client's website: the hosted flow's return_url points here, and the test reads
 * which URLs the browser arrived at.
 */
export interface ReturnServer {
  origin: string;
  /** Request paths with query, in arrival order. */
  arrivals: string[];
  close(): Promise<void>;
}

export async function startReturnServer(): Promise<ReturnServer> {
  const arrivals: string[] = [];
  const server: Server = createServer((request, response) => {
    if (request.url === '/favicon.ico') {
      response.writeHead(404).end();
      return;
    }
    arrivals.push(request.url ?? '/');
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end('<!doctype html><html lang="en"><title>Client app</title><h1>Back in the client app</h1></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    arrivals,
    close: () => new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}
