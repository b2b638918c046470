/**
 * A TCP proxy on loopback that injects faults between sync clients and a server: connections cut
 * before the request is forwarded or after the server answered (the server committed, the client
 * never hears it), HTTP 500s, stalls longer than the client's timeout, a target that is down. It
 * also counts the bytes that cross it in each direction (benchmarks use that as "bytes on the
 * wire"). Faults are drawn from a seeded generator, so a failing run can be replayed.
 */
import net from 'node:net';
import { Rng } from '../../scripts/bench/rng.js';

export type Fault = 'pass' | 'reset' | 'drop-request' | 'drop-response' | 'http500' | 'stall';

export interface FaultProxy {
  url: string;
  port: number;
  /** Where connections go (change it when the server restarts on another port). */
  target: { host: string; port: number } | null;
  /** Decides the fault of each request (numbered from 1). @default always 'pass' */
  decide: (conn: number) => Fault;
  /** Stall length for 'stall' connections, ms. */
  stallMs: number;
  /** Counts of connections by fault, and bytes client→server and server→client. */
  readonly stats: Record<Fault, number> & { up: number; down: number; connections: number };
  /** Called with the first bytes of each request forwarded to the server ('pass', 'drop-response'). */
  onRequest: ((head: string) => void) | null;
  /** Cut every open connection. */
  cutAll(): void;
  close(): Promise<void>;
}

/** A seeded generator for reproducible fault schedules. */
export function seeded(seed: number): () => number {
  const r = new Rng(seed);
  return () => r.next();
}

/** A fault schedule: each connection gets `fault` with its weight (the rest pass). */
export function chaos(random: () => number, weights: Partial<Record<Fault, number>>): (conn: number) => Fault {
  return () => {
    let x = random();
    for (const [f, w] of Object.entries(weights) as [Fault, number][]) {
      if (x < w) return f;
      x -= w;
    }
    return 'pass';
  };
}

const HTTP_500 = (): string => {
  const body = JSON.stringify({ error: { code: 'INTERNAL', message: 'injected by the fault proxy', request_id: 'fault-proxy' } });
  return `HTTP/1.1 500 Internal Server Error\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`;
};

export async function startFaultProxy(target: { host: string; port: number } | null): Promise<FaultProxy> {
  const sockets = new Set<net.Socket>();
  let n = 0;
  const proxy: FaultProxy = {
    url: '',
    port: 0,
    target,
    decide: () => 'pass',
    stallMs: 3000,
    stats: { pass: 0, reset: 0, 'drop-request': 0, 'drop-response': 0, http500: 0, stall: 0, up: 0, down: 0, connections: 0 },
    onRequest: null,
    cutAll: () => {
      for (const s of sockets) s.destroy();
    },
    close: async () => {
      proxy.cutAll();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  const track = (s: net.Socket): net.Socket => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => s.destroy());
    return s;
  };
  const server = net.createServer((client) => {
    track(client);
    proxy.stats.connections++;
    if (!proxy.target) {
      proxy.stats.reset++;
      client.resetAndDestroy();
      return;
    }
    // Faults are drawn per request, not per connection: keep-alive connections carry many.
    let fault: Fault = 'pass';
    let upstream: net.Socket | null = null;
    const connectUpstream = (): net.Socket => {
      const u = track(net.connect(proxy.target!.port, proxy.target!.host));
      u.on('close', () => client.destroy());
      u.on('data', (chunk: Buffer) => {
        if (fault === 'drop-response') {
          // The server has answered (so it committed); the client never hears it.
          client.resetAndDestroy();
          u.destroy();
          return;
        }
        proxy.stats.down += chunk.length;
        client.write(chunk);
      });
      return u;
    };
    client.on('close', () => upstream?.destroy());
    client.on('data', (chunk: Buffer) => {
      const head = chunk.toString('latin1', 0, 8);
      if (/^(GET|POST|PUT|PATCH|DELETE) /.test(head)) {
        fault = proxy.decide(++n);
        proxy.stats[fault]++;
        if (fault === 'reset' || fault === 'drop-request') {
          client.resetAndDestroy();
          return;
        }
        if (fault === 'http500') {
          client.end(HTTP_500());
          return;
        }
        if (fault === 'stall') {
          const t = setTimeout(() => client.destroy(), proxy.stallMs);
          client.on('close', () => clearTimeout(t));
          return;
        }
        proxy.onRequest?.(chunk.toString('latin1', 0, 200));
      }
      if (fault === 'http500' || fault === 'stall') return; // the rest of a refused request's body
      proxy.stats.up += chunk.length;
      upstream ??= connectUpstream();
      upstream.write(chunk);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  proxy.port = (server.address() as net.AddressInfo).port;
  proxy.url = `http://127.0.0.1:${proxy.port}`;
  return proxy;
}
