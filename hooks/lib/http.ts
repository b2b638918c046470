/**
 * A minimal HTTP/1.1 request over the daemon's Unix socket using only node:net (node:http costs
 * more to load than the whole request takes). One request per connection.
 */
import net from 'node:net';
import { untrustedSocket } from './socket-trust.js';

export interface HookResponse {
  status: number;
  body: string;
}

export class Unreachable extends Error {}
/** The connection broke mid-request (a daemon restarting): the request may or may not have arrived. */
export class Reset extends Error {}

export function post(socketPath: string, path: string, payload: unknown, timeoutMs: number): Promise<HookResponse> {
  const body = Buffer.from(JSON.stringify(payload), 'utf8');
  // Another user's socket (or one in a directory others may enter) gets nothing: as if no daemon ran.
  const untrusted = untrustedSocket(socketPath);
  if (untrusted) return Promise.reject(new Unreachable(untrusted));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let settled = false;
    const done = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      sock.destroy();
      fn();
    };
    const sock = net.createConnection(socketPath);
    const timer = setTimeout(() => done(() => reject(new Error('timeout'))), timeoutMs);
    sock.on('connect', () => {
      sock.write(`POST ${path} HTTP/1.1\r\nHost: memory-daemon\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`);
      sock.write(body);
    });
    sock.on('data', (c: Buffer) => {
      chunks.push(c);
      const r = parse(Buffer.concat(chunks));
      if (r) done(() => resolve(r));
    });
    sock.on('end', () => {
      const r = parse(Buffer.concat(chunks));
      done(() => (r ? resolve(r) : reject(new Reset('incomplete response'))));
    });
    sock.on('error', (err: NodeJS.ErrnoException) => {
      const unreachable = err.code === 'ENOENT' || err.code === 'ECONNREFUSED' || err.code === 'ENOTSOCK';
      const reset = err.code === 'ECONNRESET' || err.code === 'EPIPE';
      done(() => reject(unreachable ? new Unreachable(err.code) : reset ? new Reset(err.code) : err));
    });
  });
}

/** A complete response, or null while more bytes are needed. */
function parse(buf: Buffer): HookResponse | null {
  const end = buf.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const head = buf.subarray(0, end).toString('latin1');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0);
  const rest = buf.subarray(end + 4);
  const len = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  if (len) {
    const n = Number(len[1]);
    return rest.length >= n ? { status, body: rest.subarray(0, n).toString('utf8') } : null;
  }
  if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) {
    const parts: Buffer[] = [];
    let pos = 0;
    for (;;) {
      const nl = rest.indexOf('\r\n', pos);
      if (nl < 0) return null;
      const size = parseInt(rest.subarray(pos, nl).toString('latin1'), 16);
      if (size === 0) return { status, body: Buffer.concat(parts).toString('utf8') };
      if (rest.length < nl + 2 + size + 2) return null;
      parts.push(rest.subarray(nl + 2, nl + 2 + size));
      pos = nl + 2 + size + 2;
    }
  }
  return null;
}
