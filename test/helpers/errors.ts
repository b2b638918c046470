import assert from 'node:assert/strict';
import type { Reply } from './server.js';

/** The documented error body: `{error: {code, message, details?, request_id}}`, no stack trace. */
export function assertError(r: Pick<Reply, 'status' | 'json'>, status: number, code?: string): void {
  assert.equal(r.status, status, JSON.stringify(r.json));
  assert.equal(typeof r.json?.error?.code, 'string', JSON.stringify(r.json));
  if (code) assert.equal(r.json.error.code, code);
  assert.equal(typeof r.json.error.message, 'string');
  assert.ok(r.json.error.message.length > 0);
  assert.equal(typeof r.json.error.request_id, 'string');
  assert.ok(!JSON.stringify(r.json).includes('    at '), 'no stack trace');
}

/** Poll `fn` until it returns a truthy value or `ms` pass. */
export async function eventually<T>(fn: () => Promise<T | null | undefined | false>, ms = 10_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
