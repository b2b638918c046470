/**
 * The one configuration schema: every key's env name, default, allowed values and meaning.
 * The README's configuration table is generated from `CONFIG_SCHEMA` (scripts/gen-config-table).
 * Env is read only through `loadConfig`; callers pass the environment in (tests pass their own).
 */
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_RESIDENT_ROWS } from './store/resident-budget.js';

type Kind = 'string' | 'int' | 'bool' | 'enum' | 'url' | 'path' | 'secret';

interface Entry<K extends Kind = Kind, V = unknown> {
  env: string;
  kind: K;
  default: V;
  /** Shown in the README when the default is computed at run time. */
  defaultLabel?: string;
  values?: readonly string[];
  min?: number;
  max?: number;
  /** `hooks`: read by the hook scripts only (the daemon does not use it). */
  group: 'plugin' | 'hooks' | 'daemon' | 'server' | 'model' | 'extractor' | 'sync';
  description: string;
}

/** Default recall budget: ~1,500 tokens (~6,000 chars) stays far below the 10,000-char hook cap. */
export const DEFAULT_CONTEXT_TOKENS = 1500;
/** SPEC §8: at most 4,000 characters per memory block. */
export const DEFAULT_MAX_CONTENT_CHARS = 4000;

export const CONFIG_SCHEMA = {
  home: {
    env: 'SERVICE_HOME',
    kind: 'path',
    default: '',
    defaultLabel: '`~/.memory-service`',
    group: 'daemon',
    description: 'Data directory: memories, journal, socket, logs, model cache. Isolates all state.',
  },
  apiKey: {
    env: 'SERVICE_API_KEY',
    kind: 'secret',
    default: '',
    defaultLabel: 'none',
    group: 'plugin',
    description: 'API key for the /v1 server (sync and verify). Needed only when `SERVICE_BASE_URL` is set.',
  },
  baseUrl: {
    env: 'SERVICE_BASE_URL',
    kind: 'url',
    default: '',
    defaultLabel: 'unset (local only)',
    group: 'plugin',
    description: 'Base address of a /v1 server to mirror into. Unset means local only: no network at all.',
  },
  syncIntervalMs: {
    env: 'SERVICE_SYNC_INTERVAL_MS',
    kind: 'int',
    default: 10_000,
    min: 100,
    max: 3_600_000,
    group: 'sync',
    description: 'How often sync pulls the server’s change feed. Local changes are pushed within a second of being written.',
  },
  syncBatch: {
    env: 'SERVICE_SYNC_BATCH',
    kind: 'int',
    default: 200,
    min: 1,
    max: 1000,
    group: 'sync',
    description: 'Versions per push request (a request also stays under 256 KiB).',
  },
  syncTimeoutMs: {
    env: 'SERVICE_SYNC_TIMEOUT_MS',
    kind: 'int',
    default: 30_000,
    min: 100,
    max: 600_000,
    group: 'sync',
    description: 'A sync request whose answer does not start, or stalls, for this long fails and is retried.',
  },
  syncRetryBaseMs: {
    env: 'SERVICE_SYNC_RETRY_BASE_MS',
    kind: 'int',
    default: 1000,
    min: 10,
    max: 3_600_000,
    group: 'sync',
    description: 'First retry delay after a failed sync round; it doubles per failure, with jitter, up to `SERVICE_SYNC_RETRY_MAX_MS`.',
  },
  syncRetryMaxMs: {
    env: 'SERVICE_SYNC_RETRY_MAX_MS',
    kind: 'int',
    default: 300_000,
    min: 10,
    max: 86_400_000,
    group: 'sync',
    description: 'Longest wait between sync retries while the server is unreachable or failing.',
  },
  userId: {
    env: 'SERVICE_USER_ID',
    kind: 'string',
    default: '',
    defaultLabel: 'OS user name',
    group: 'plugin',
    description: 'Owner of captured memories.',
  },
  topK: {
    env: 'SERVICE_TOP_K',
    kind: 'int',
    default: 5,
    min: 1,
    max: 100,
    group: 'plugin',
    description: 'Maximum memories returned per plugin search.',
  },
  exportKeep: {
    env: 'SERVICE_EXPORT_KEEP',
    kind: 'int',
    default: 3,
    min: 1,
    max: 1000,
    group: 'daemon',
    description: 'Finished exports the daemon keeps in `$SERVICE_HOME/exports` (to download again); older ones are deleted, and any older than 7 days.',
  },
  maxContentChars: {
    env: 'SERVICE_MAX_CONTENT_CHARS',
    kind: 'int',
    default: DEFAULT_MAX_CONTENT_CHARS,
    min: 200,
    max: 100_000,
    group: 'plugin',
    description: 'Maximum characters per memory block; longer text becomes several linked blocks.',
  },
  searchScope: {
    env: 'SERVICE_SEARCH_SCOPE',
    kind: 'enum',
    default: 'repo',
    values: ['repo', 'dir', 'user', 'session'],
    group: 'plugin',
    description: 'Default scope of `memory.search` and `service search`.',
  },
  telemetry: {
    env: 'SERVICE_TELEMETRY',
    kind: 'bool',
    default: true,
    group: 'plugin',
    description: 'Anonymous usage telemetry (event type, versions, timings, error class). `false` or `DO_NOT_TRACK=1` turns it off.',
  },
  autostart: {
    env: 'SERVICE_AUTOSTART',
    kind: 'bool',
    default: true,
    group: 'plugin',
    description: 'CLI commands and hooks that need the daemon start it when it is not running. `false`: commands fail with exit 3 instead and hooks keep events in the spool until you run `service daemon start`.',
  },
  recallTimeoutMs: {
    env: 'SERVICE_RECALL_TIMEOUT_MS',
    kind: 'int',
    default: 0,
    defaultLabel: '0 (800 ms; 1,500 ms at session start)',
    min: 0,
    max: 10_000,
    group: 'hooks',
    description: 'How long a recall hook waits for the daemon before the agent goes on without memories (read by the hooks from the environment, then the config file).',
  },
  contextTokens: {
    env: 'SERVICE_CONTEXT_TOKENS',
    kind: 'int',
    default: DEFAULT_CONTEXT_TOKENS,
    min: 100,
    max: 2200,
    group: 'plugin',
    description: 'Recall budget in tokens for the context block given to the agent (always under 9,000 characters).',
  },
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
  host: {
    env: 'SERVICE_HOST',
    kind: 'string',
    default: '127.0.0.1',
    group: 'server',
    description: 'Address `service serve` listens on.',
  },
  port: {
    env: 'SERVICE_PORT',
    kind: 'int',
    default: 8420,
    min: 0,
    max: 65535,
    group: 'server',
    description: 'Port `service serve` listens on (0 picks a free one).',
  },
  bodyLimitBytes: {
    env: 'SERVICE_BODY_LIMIT_BYTES',
    kind: 'int',
    default: 1_048_576,
    min: 1024,
    max: 268_435_456,
    group: 'server',
    description: 'Largest JSON request body; larger ones get 413.',
  },
  importLimitBytes: {
    env: 'SERVICE_IMPORT_LIMIT_BYTES',
    kind: 'int',
    default: 268_435_456,
    min: 1024,
    max: 4_294_967_296,
    group: 'server',
    description: 'Largest NDJSON body accepted by `POST /v1/imports`.',
  },
  pageSizeMax: {
    env: 'SERVICE_PAGE_SIZE_MAX',
    kind: 'int',
    default: 1000,
    min: 10,
    max: 10_000,
    group: 'server',
    description: 'Upper bound of `limit` on list routes (the default page is 100).',
  },
  rateLimitPerMinute: {
    env: 'SERVICE_RATE_LIMIT_PER_MINUTE',
    kind: 'int',
    default: 6000,
    min: 1,
    max: 10_000_000,
    group: 'server',
    description: 'Requests per API key per minute before 429 with Retry-After.',
  },
  databaseUrl: {
    env: 'SERVICE_DATABASE_URL',
    kind: 'secret',
    default: '',
    defaultLabel: 'unset (embedded: LanceDB and files)',
    group: 'server',
    description: '`postgres://` URL: `service serve` keeps all its state (memories, keys, events, webhooks, jobs, limits, telemetry) in PostgreSQL, so several replicas can share one team (docs/deploy.md).',
  },
  webhookAllowPrivate: {
    env: 'SERVICE_WEBHOOK_ALLOW_PRIVATE',
    kind: 'bool',
    default: false,
    group: 'server',
    description: 'Allow webhook targets on loopback and private addresses (off: such targets are refused).',
  },
  webhookMaxAttempts: {
    env: 'SERVICE_WEBHOOK_MAX_ATTEMPTS',
    kind: 'int',
    default: 8,
    min: 1,
    max: 50,
    group: 'server',
    description: 'Delivery attempts per webhook event before it is marked failed.',
  },
  webhookRetryBaseMs: {
    env: 'SERVICE_WEBHOOK_RETRY_BASE_MS',
    kind: 'int',
    default: 5000,
    min: 10,
    max: 3_600_000,
    group: 'server',
    description: 'First retry delay of a failed delivery; it doubles per attempt (with jitter, capped at one hour).',
  },
  webhookTimeoutMs: {
    env: 'SERVICE_WEBHOOK_TIMEOUT_MS',
    kind: 'int',
    default: 10_000,
    min: 100,
    max: 120_000,
    group: 'server',
    description: 'A delivery that has not answered within this time counts as failed.',
  },
  llmBaseUrl: {
    env: 'SERVICE_LLM_BASE_URL',
    kind: 'url',
    default: '',
    defaultLabel: 'unset (off)',
    group: 'extractor',
    description: 'OpenAI-compatible endpoint for the optional LLM extractor. Unset keeps extraction local.',
  },
  llmModel: {
    env: 'SERVICE_LLM_MODEL',
    kind: 'string',
    default: 'gpt-4o-mini',
    group: 'extractor',
    description: 'Model name sent to the LLM extractor endpoint.',
  },
  llmApiKey: {
    env: 'SERVICE_LLM_API_KEY',
    kind: 'secret',
    default: '',
    defaultLabel: 'none',
    group: 'extractor',
    description: 'Bearer key for the LLM extractor endpoint.',
  },
  llmDailyTokens: {
    env: 'SERVICE_LLM_DAILY_TOKENS',
    kind: 'int',
    default: 200_000,
    min: 0,
    max: 100_000_000,
    group: 'extractor',
    description: 'Hard cap on LLM extractor tokens per day; past it, extraction stays local until midnight UTC.',
  },
} as const satisfies Record<string, Entry>;

/**
 * Environment names that were renamed, old → current. `service plugin update` rewrites them in the
 * `env` block of Claude Code's settings (where plugin users set them) and `service plugin status`
 * points at any still exported in the shell. The rows are short spellings of SPEC §2's
 * search_scope, top_k and max_content_chars, settings SPEC gave no env name for (top_k,
 * max_content_chars); a future rename adds a row here.
 */
export const RENAMED_ENV: Readonly<Record<string, string>> = {
  SERVICE_SCOPE: 'SERVICE_SEARCH_SCOPE',
  SERVICE_TOPK: 'SERVICE_TOP_K',
  SERVICE_MAX_CHARS: 'SERVICE_MAX_CONTENT_CHARS',
};

type Schema = typeof CONFIG_SCHEMA;
type ValueOf<E> = E extends { kind: 'int' } ? number : E extends { kind: 'bool' } ? boolean : E extends { kind: 'enum'; values: readonly (infer V)[] } ? V : string;

/** Resolved configuration. Strings that are "unset" are ''. */
export type Config = { -readonly [K in keyof Schema]: ValueOf<Schema[K]> };
export type ConfigKey = keyof Schema;

export type Env = Record<string, string | undefined>;

/** A bad configuration value; the message names the variable and what it accepts. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(message);
    this.name = 'ConfigError';
  }
}

const TRUE = new Set(['1', 'true', 'yes', 'on']);
const FALSE = new Set(['0', 'false', 'no', 'off']);

function parseEntry(entry: Entry, raw: string): unknown {
  const v = raw.trim();
  switch (entry.kind) {
    case 'int': {
      const n = Number(v);
      if (!/^-?\d+$/.test(v) || !Number.isSafeInteger(n) || n < (entry.min ?? -Infinity) || n > (entry.max ?? Infinity)) {
        throw new ConfigError(entry.env, `${entry.env}=${JSON.stringify(raw)} is not valid: use a whole number from ${entry.min} to ${entry.max}.`);
      }
      return n;
    }
    case 'bool': {
      const l = v.toLowerCase();
      if (TRUE.has(l)) return true;
      if (FALSE.has(l)) return false;
      throw new ConfigError(entry.env, `${entry.env}=${JSON.stringify(raw)} is not valid: use true or false.`);
    }
    case 'enum':
      if (!entry.values!.includes(v)) {
        throw new ConfigError(entry.env, `${entry.env}=${JSON.stringify(raw)} is not valid: use one of ${entry.values!.join(', ')}.`);
      }
      return v;
    case 'url': {
      if (v === '') return '';
      let u: URL;
      try {
        u = new URL(v);
      } catch {
        throw new ConfigError(entry.env, `${entry.env}=${JSON.stringify(raw)} is not a URL: use for example https://memory.example.com.`);
      }
      if (u.protocol !== 'http:' && u.protocol !== 'https:') {
        throw new ConfigError(entry.env, `${entry.env} must be an http:// or https:// URL, not ${u.protocol}`);
      }
      return v.replace(/\/+$/, '');
    }
    case 'path':
      return v === '' ? '' : path.resolve(v);
    default:
      return v;
  }
}

/**
 * Resolve the configuration from an environment. `overrides` win over env (CLI flags).
 * Throws ConfigError on the first invalid value.
 */
export function loadConfig(env: Env, overrides: Partial<Config> = {}): Config {
  const out: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(CONFIG_SCHEMA) as [ConfigKey, Entry][]) {
    const raw = env[entry.env];
    out[key] = raw === undefined || (raw === '' && entry.kind !== 'string') ? entry.default : parseEntry(entry, raw);
  }
  const cfg = { ...out, ...stripUndefined(overrides) } as Config;
  if (cfg.home === '') cfg.home = path.join(os.homedir(), '.memory-service');
  if (cfg.userId === '') cfg.userId = safeUserName();
  if (env.DO_NOT_TRACK === '1' || env.DO_NOT_TRACK?.toLowerCase() === 'true') cfg.telemetry = false;
  return cfg;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function safeUserName(): string {
  try {
    return os.userInfo().username || 'user';
  } catch {
    return 'user';
  }
}

/** Rows for the README table, in schema order. */
export function configTableRows(): { env: string; default: string; allowed: string; description: string; group: string }[] {
  return (Object.values(CONFIG_SCHEMA) as Entry[]).map((e) => ({
    env: e.env,
    group: e.group,
    default: e.defaultLabel ?? (e.default === '' ? 'unset' : `\`${String(e.default)}\``),
    allowed:
      e.kind === 'enum'
        ? e.values!.join(' \\| ')
        : e.kind === 'int'
          ? `${e.min}–${e.max}`
          : e.kind === 'bool'
            ? 'true \\| false'
            : e.kind === 'url'
              ? 'http(s) URL'
              : e.kind === 'path'
                ? 'path'
                : 'text',
    description: e.description,
  }));
}
