/** A real webhook receiver on loopback that checks every delivery's signature. */
import http from 'node:http';
import { verifySignature } from '../../server/index.js';

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  json: any;
  /** Whether the signature matched the secret and the timestamp was fresh. */
  valid: boolean;
  /** Status code the receiver answered with. */
  answered: number;
}

export interface Receiver {
  url: string;
  /** Set the secret deliveries are checked against (the one shown at webhook creation). */
  secret: string;
  received: Received[];
  /** Status codes for the next requests, in order (0: never answer); afterwards 200. */
  script: number[];
  close(): Promise<void>;
}

export async function startReceiver(port = 0): Promise<Receiver> {
  const r: Receiver = { url: '', secret: '', received: [], script: [], close: async () => {} };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const valid = verifySignature(r.secret, req.headers['x-memory-signature'] as string | undefined, req.headers['x-memory-timestamp'] as string | undefined, body);
      const status = r.script.shift() ?? 200;
      let json: unknown = null;
      try {
        json = JSON.parse(body);
      } catch {
        json = null;
      }
      r.received.push({ headers: req.headers, body, json, valid, answered: status });
      if (status === 0) return; // hang: the sender's timeout must fire
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'nope');
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  r.url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`;
  r.close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return r;
}
