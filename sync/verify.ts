/**
 * The key check of a round: `GET /api/v1/verify` tells which project (and member) the key writes
 * to. The result is kept for status; a different server or project than the cursors belong to
 * starts them over (everything local is pushed there, its whole feed pulled).
 */
import type { Logger } from '../engine/index.js';
import type { SyncState } from './state.js';
import { SyncRequestError, type SyncTransport } from './transport.js';

export async function verifyKey(transport: SyncTransport, state: SyncState, log: Logger): Promise<void> {
  const checkedAt = new Date().toISOString();
  try {
    const v = await transport.verify();
    state.setVerify({ valid: true, checked_at: checkedAt, project_id: v.project_id, org_id: v.org_id, member_id: v.member_id, key_id: v.key_id });
    const target = `${transport.baseUrl}#${v.project_id}`;
    if (state.target !== target) {
      if (state.target !== null) log.info('sync target changed; pushing everything and pulling the whole feed', { from: state.target, to: target });
      state.retarget(target);
    }
    state.save();
  } catch (err) {
    // The server answered and refused the key: remember that for status. No answer says nothing about the key.
    if (err instanceof SyncRequestError && err.status !== null) {
      state.setVerify({ valid: false, checked_at: checkedAt, error: { code: err.code, message: err.message } });
      state.save();
    }
    throw err;
  }
}
