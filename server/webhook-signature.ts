/**
 * Webhook signatures (README, "Verifying webhook deliveries"):
 * `X-Memory-Signature: sha256=<hex HMAC-SHA256(secret, timestamp + "." + raw body)>`, where the
 * timestamp is the `X-Memory-Timestamp` header (Unix seconds). Receivers recompute it over the raw
 * body bytes, compare in constant time and reject stale timestamps (replays).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Memory-Signature';
export const TIMESTAMP_HEADER = 'X-Memory-Timestamp';
export const DELIVERY_HEADER = 'X-Memory-Delivery';
export const EVENT_HEADER = 'X-Memory-Event';

/** A new webhook secret (shown once). */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

export function signPayload(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/** Check a delivery as a receiver would: signature over timestamp and body, timestamp within `toleranceS`. */
export function verifySignature(secret: string, signature: string | undefined, timestamp: string | undefined, body: string, toleranceS = 300, nowS = Date.now() / 1000): boolean {
  if (!signature || !timestamp || !/^\d+$/.test(timestamp)) return false;
  if (Math.abs(nowS - Number(timestamp)) > toleranceS) return false;
  const want = Buffer.from(signPayload(secret, timestamp, body));
  const got = Buffer.from(signature);
  return want.length === got.length && timingSafeEqual(want, got);
}
