/** Public surface of the daemon (the socket client has its own entry: daemon/client.ts). */
export { startDaemon } from './server.js';
export type { RunOptions, RunningDaemon, StartResult } from './server.js';
export { Daemon } from './daemon.js';
export { looksLikeDaemon, readLock, pidAlive, removeSocket } from './lifecycle.js';
export type { LockInfo } from './lifecycle.js';
export { normalizeRemote, repoInfo } from './repo.js';
export type { RepoInfo } from './repo.js';
export { readTelemetryState } from './telemetry.js';
