/**
 * Where webhooks may send: http(s) URLs whose host resolves only to public addresses. Loopback,
 * private (RFC 1918, CGNAT), link-local, unique-local (fc00::/7), multicast, reserved and
 * NAT64/6to4-embedded ranges are refused unless the operator allows private targets
 * (`SERVICE_WEBHOOK_ALLOW_PRIVATE=true`).
 *
 * The check runs when a webhook is created or its URL changed (after DNS resolution), and again at
 * every delivery inside the socket's own lookup, so the address connected to is the address
 * checked (a DNS answer that changes later cannot point a delivery inward).
 */
import dns from 'node:dns';
import net from 'node:net';
import { Agent } from 'undici';

const BLOCKED = new net.BlockList();
for (const [addr, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  BLOCKED.addSubnet(addr, prefix, 'ipv4');
}
for (const [addr, prefix] of [
  ['::', 96],
  ['::1', 128],
  ['::ffff:0:0:0', 96],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  BLOCKED.addSubnet(addr, prefix, 'ipv6');
}

/** True for addresses a webhook must not reach (IPv4-mapped IPv6 is judged as its IPv4). */
export function isBlockedAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 0) return true;
  return BLOCKED.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** Why a target is refused, for the 422 body. */
export class TargetError extends Error {
  constructor(
    message: string,
    readonly reason: 'invalid_url' | 'unresolvable' | 'private_address',
  ) {
    super(message);
    this.name = 'TargetError';
  }
}

function hostOf(u: URL): string {
  return u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname;
}

/** Parse a webhook URL (http or https, no credentials). */
export function parseTargetUrl(raw: string): URL {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new TargetError('url is not a valid URL', 'invalid_url');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new TargetError('url must use http or https', 'invalid_url');
  if (u.username || u.password) throw new TargetError('url must not contain credentials; the signature authenticates deliveries', 'invalid_url');
  return u;
}

/** Resolve the URL's host and refuse it unless every address is public (or private targets are allowed). */
export async function checkTarget(raw: string, allowPrivate: boolean): Promise<URL> {
  const u = parseTargetUrl(raw);
  if (allowPrivate) return u;
  const host = hostOf(u);
  let addresses: string[];
  if (net.isIP(host)) addresses = [host];
  else {
    try {
      addresses = (await dns.promises.lookup(host, { all: true, verbatim: true })).map((a) => a.address);
    } catch {
      throw new TargetError(`the host ${host} does not resolve`, 'unresolvable');
    }
  }
  const bad = addresses.filter(isBlockedAddress);
  if (bad.length > 0) throw new TargetError(`the host ${host} resolves to a loopback, private or reserved address (${bad[0]}); such targets are refused`, 'private_address');
  return u;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/** A socket lookup that drops blocked addresses and fails when none is left. */
function safeLookup(hostname: string, options: dns.LookupOptions, callback: LookupCallback): void {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) {
      callback(err, []);
      return;
    }
    const ok = addresses.filter((a) => !isBlockedAddress(a.address));
    if (ok.length === 0) {
      callback(Object.assign(new Error(`${hostname} resolves only to loopback, private or reserved addresses`), { code: 'EPRIVATETARGET' }), []);
      return;
    }
    if (options.all) callback(null, ok);
    else callback(null, ok[0]!.address, ok[0]!.family);
  });
}

/** The undici dispatcher deliveries use: connect timeout, and the address check at connect time. */
export function deliveryAgent(opts: { allowPrivate: boolean; timeoutMs: number }): Agent {
  return new Agent({
    connect: { timeout: opts.timeoutMs, ...(opts.allowPrivate ? {} : { lookup: safeLookup }) },
    headersTimeout: opts.timeoutMs,
    bodyTimeout: opts.timeoutMs,
    keepAliveTimeout: 4_000,
  });
}

/** Refuse an IP-literal target at delivery time (sockets skip the lookup for literals). */
export function literalBlocked(u: URL, allowPrivate: boolean): boolean {
  const host = hostOf(u);
  return !allowPrivate && net.isIP(host) !== 0 && isBlockedAddress(host);
}
