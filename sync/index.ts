/** Public surface of sync: the loop that mirrors a machine's engine into a /v1 server. */
export { SyncService, PUSH_DELAY_MS } from './service.js';
export type { SyncServiceOptions, SyncPhase, RoundReport } from './service.js';
export type { SyncStatus } from './status.js';
export { HttpTransport } from './http-transport.js';
export type { HttpTransportOptions } from './http-transport.js';
export { SyncRequestError } from './transport.js';
export type { SyncTransport, PushResult, FeedEvent, FeedPage, VerifyInfo, FailureKind } from './transport.js';
export type { PushReport } from './push.js';
export type { PullReport } from './pull.js';
export type { ParkedVersion, PendingPurge, VerifyRecord } from './state.js';
export { backoffDelay } from './backoff.js';
export { SeqRanges } from './seq-ranges.js';
