/** Builds the daemon's sync loop from configuration: on with a base URL and a key, off otherwise. */
import type { Config, Logger, MemoryEngine, Paths } from '../engine/index.js';
import { HttpTransport, SyncService } from '../sync/index.js';

/** SIGTERM gives sync this long to push what is left before the daemon exits. */
export const SYNC_DRAIN_MS = 5000;

export function createSync(engine: MemoryEngine, config: Config, paths: Paths, logger: Logger, version: string): SyncService {
  const on = config.baseUrl !== '' && config.apiKey !== '';
  const offReason =
    config.baseUrl === ''
      ? 'SERVICE_BASE_URL is unset, so this machine stays local (set it and SERVICE_API_KEY, then restart the daemon, to sync)'
      : 'SERVICE_API_KEY is unset: export the key your server gave you and restart the daemon';
  return new SyncService({
    engine,
    stateFile: paths.syncStateFile,
    transport: on ? new HttpTransport({ baseUrl: config.baseUrl, apiKey: config.apiKey, timeoutMs: config.syncTimeoutMs, userAgent: `memory-service/${version}` }) : null,
    ...(on ? {} : { offReason }),
    intervalMs: config.syncIntervalMs,
    batch: config.syncBatch,
    retryBaseMs: config.syncRetryBaseMs,
    retryMaxMs: config.syncRetryMaxMs,
    logger,
  });
}
