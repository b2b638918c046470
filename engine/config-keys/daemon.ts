/**
 * Configuration keys of the daemon: the embedding model, then its limits, recall deadline, session
 * flushing and log. Part of CONFIG_SCHEMA (engine/config.ts), in its order.
 */
import type { Entry } from './entry.js';
import { DEFAULT_RESIDENT_ROWS } from '../store/resident-budget.js';

export const MODEL_KEYS = {
  model: {
    env: 'SERVICE_MODEL',
    kind: 'string',
    default: 'Xenova/all-MiniLM-L6-v2',
    group: 'model',
    description: 'Embedding model id, downloaded on first run into the data directory’s model cache.',
  },
  modelDir: {
    env: 'SERVICE_MODEL_DIR',
    kind: 'path',
    default: '',
    defaultLabel: 'unset',
    group: 'model',
    description: 'A local model folder in the transformers.js layout, used with no network access at all.',
  },
  modelDtype: {
    env: 'SERVICE_MODEL_DTYPE',
    kind: 'enum',
    default: 'auto',
    values: ['auto', 'q8', 'fp32'],
    group: 'model',
    description:
      'Model weights: `auto` takes the int8 file of a hub model, and the files a local folder has (its int8 file if any); `q8` also makes an int8 copy of a local fp32-only folder once, in the model cache (about 2× faster and a quarter of the memory); `fp32` takes the full-precision file.',
  },
  offline: {
    env: 'SERVICE_OFFLINE',
    kind: 'bool',
    default: false,
    group: 'model',
    description: 'Never download a model; without a local one the engine runs on full-text search only.',
  },
} as const satisfies Record<string, Entry>;

export const DAEMON_KEYS = {
  maxMetadataBytes: {
    env: 'SERVICE_MAX_METADATA_BYTES',
    kind: 'int',
    default: 16_384,
    min: 256,
    max: 1_048_576,
    group: 'daemon',
    description: 'Largest serialized metadata object accepted on a memory.',
  },
  residentSearchRows: {
    env: 'SERVICE_RESIDENT_SEARCH_ROWS',
    kind: 'int',
    default: DEFAULT_RESIDENT_ROWS,
    min: 0,
    max: 10_000_000,
    group: 'daemon',
    description:
      'Memories held in RAM for searching, by the daemon, or by a server across all its projects (at 384 dimensions ~3 KB of data each, 3-10 KB of RSS): a store that fits is searched in memory, exactly, in about a millisecond at 10k memories; a larger one through its LanceDB indexes. 0 turns it off.',
  },
  recallDeadlineMs: {
    env: 'SERVICE_RECALL_DEADLINE_MS',
    kind: 'int',
    default: 250,
    min: 20,
    max: 5000,
    group: 'daemon',
    description: 'A recall that cannot finish within this time returns nothing rather than block the agent.',
  },
  idleFlushMs: {
    env: 'SERVICE_IDLE_FLUSH_MS',
    kind: 'int',
    default: 120_000,
    min: 1000,
    max: 86_400_000,
    group: 'daemon',
    description: 'A session with captured events and no activity for this long is flushed.',
  },
  logLevel: {
    env: 'SERVICE_LOG_LEVEL',
    kind: 'enum',
    default: 'info',
    values: ['debug', 'info', 'warn', 'error'],
    group: 'daemon',
    description: 'Level of the file-backed developer log.',
  },
} as const satisfies Record<string, Entry>;
