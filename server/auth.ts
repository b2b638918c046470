/**
 * API-key authentication: `Authorization: Bearer <key>` (or `Token <key>`). Sets `res.locals.caller`
 * or answers 401 with the error body and a hint to verify the key. The tenancy document is
 * re-read whenever another process changed it, so a revoked key is refused on its next request.
 */
import type { RequestHandler } from 'express';
import { httpError } from '../api/index.js';
import { callerOf, type Caller } from './access.js';
import type { TenancyStore } from './tenancy.js';

export function bearerSecret(header: string | undefined): string | null {
  if (!header) return null;
  const m = /^(Bearer|Token)\s+(\S+)\s*$/i.exec(header);
  return m ? m[2]! : null;
}

export function missingKey(): Error {
  return httpError('UNAUTHORIZED', 'missing API key: send Authorization: Bearer <key> (export SERVICE_API_KEY for the plugin)');
}

export function invalidKey(): Error {
  return httpError('UNAUTHORIZED', 'invalid or revoked API key; check it with GET /api/v1/verify');
}

/** Who presents `secret` according to `tenancy` (null: no such key, or revoked). */
export function callerForSecret(tenancy: TenancyStore, secret: string): Caller | null {
  const key = tenancy.authenticate(secret);
  return key ? callerOf(tenancy, key) : null;
}

export function authenticate(tenancy: TenancyStore): RequestHandler {
  return (req, res, next) => {
    const secret = bearerSecret(req.get('Authorization'));
    if (!secret) {
      next(missingKey());
      return;
    }
    const caller = callerForSecret(tenancy, secret);
    if (!caller) {
      next(invalidKey());
      return;
    }
    res.locals.caller = caller;
    next();
  };
}

export function callerOfRes(res: { locals: Record<string, unknown> }): Caller {
  const c = res.locals.caller as Caller | undefined;
  if (!c) throw httpError('UNAUTHORIZED', 'missing API key');
  return c;
}
