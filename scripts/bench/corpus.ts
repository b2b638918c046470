/**
 * Deterministic coding-memory texts for benchmarks: sentences from templates over a vocabulary of
 * repositories, tools, services and decisions, the kind of thing an agent's memory holds ("We
 * switched the test runner from jest to vitest in web-app because watch mode was slow.").
 *
 * A memory is two sentences (fragments) joined. Seeding 100k memories reuses a pool of embedded
 * fragments (see pooled-embedder.ts), so every memory text is unique while only the pool is run
 * through the model.
 */
import { Rng } from './rng.js';

export const REPOS = [
  'github.com/acme/web-app', 'github.com/acme/api-gateway', 'github.com/acme/billing', 'github.com/acme/mobile',
  'github.com/acme/infra', 'github.com/acme/data-pipeline', 'github.com/acme/auth-service', 'github.com/acme/search',
  'github.com/acme/design-system', 'github.com/acme/cli', 'github.com/acme/docs', 'github.com/acme/notifications',
  'github.com/acme/analytics', 'github.com/acme/payments', 'github.com/acme/ml-platform', 'github.com/acme/admin-console',
  'github.com/acme/edge-proxy', 'github.com/acme/scheduler', 'github.com/acme/sdk-js', 'github.com/acme/sdk-python',
] as const;

const DIRS = ['src', 'src/api', 'src/db', 'src/ui', 'lib', 'test', 'scripts', 'infra', 'packages/core', 'packages/web', 'cmd', 'internal/store'];
const USERS = ['alice', 'bob', 'carol', 'dave', 'erin'];
const CATEGORIES = ['decision', 'constraint', 'preference', 'convention', 'context', 'fact', 'note'] as const;

const TOOLS = ['pnpm', 'npm', 'yarn', 'vitest', 'jest', 'eslint', 'prettier', 'biome', 'tsc', 'esbuild', 'vite', 'webpack', 'docker', 'helm', 'terraform', 'kubectl', 'pytest', 'ruff', 'mypy', 'cargo', 'clippy', 'go test', 'make', 'bazel', 'playwright', 'cypress', 'storybook', 'turbo', 'nx', 'changesets'];
const SERVICES = ['postgres', 'redis', 'kafka', 'rabbitmq', 'elasticsearch', 'clickhouse', 'sqlite', 'dynamodb', 's3', 'cloudflare', 'nginx', 'grpc', 'graphql', 'rest', 'websocket', 'sentry', 'datadog', 'prometheus', 'grafana', 'vault', 'stripe', 'auth0', 'github actions', 'circleci', 'argo'];
const TOPICS = ['database migrations', 'feature flags', 'error handling', 'retries with backoff', 'rate limiting', 'pagination', 'caching', 'logging', 'tracing', 'config loading', 'dependency injection', 'code review', 'release notes', 'semantic versioning', 'monorepo layout', 'snapshot tests', 'integration tests', 'load tests', 'accessibility', 'internationalization', 'dark mode', 'bundle size', 'cold starts', 'connection pooling', 'schema validation', 'background jobs', 'webhooks', 'idempotency keys', 'secrets rotation', 'on-call runbooks'];
const REASONS = ['the old setup was slow in CI', 'it halves the build time', 'the team already knows it', 'it caught real bugs last quarter', 'the vendor dropped support', 'it keeps the lockfile deterministic', 'watch mode was unreliable', 'memory use was too high', 'it works offline', 'security review required it', 'flaky tests cost us a release', 'it matches the production setup', 'the licence is compatible', 'it is simpler to debug'];
const NAMES = ['UserService', 'OrderRepository', 'PaymentClient', 'AuthMiddleware', 'SessionStore', 'RateLimiter', 'EventBus', 'JobQueue', 'ConfigLoader', 'MetricsReporter', 'SearchIndex', 'FeatureFlags', 'InvoiceBuilder', 'WebhookDispatcher', 'CacheLayer'];
const FILES = ['index.ts', 'server.ts', 'client.ts', 'schema.sql', 'Dockerfile', 'main.go', 'app.py', 'config.yaml', 'Makefile', 'package.json', 'tsconfig.json', 'values.yaml', 'routes.ts', 'handlers.go', 'models.py'];
const ENVS = ['staging', 'production', 'the dev cluster', 'preview environments', 'local docker compose', 'the CI runners'];
const VERSIONS = ['Node 20', 'Node 22', 'Python 3.12', 'Go 1.22', 'TypeScript 5.9', 'Postgres 16', 'Redis 7', 'React 19', 'Rust 1.80'];

type Template = (r: Rng) => string;

const TEMPLATES: Template[] = [
  (r) => `We switched from ${r.pick(TOOLS)} to ${r.pick(TOOLS)} because ${r.pick(REASONS)}.`,
  (r) => `Use ${r.pick(TOOLS)} for ${r.pick(TOPICS)} in ${r.pick(DIRS)}.`,
  (r) => `Never call ${r.pick(SERVICES)} directly from ${r.pick(NAMES)}; go through the ${r.pick(NAMES)} wrapper.`,
  (r) => `The ${r.pick(NAMES)} talks to ${r.pick(SERVICES)} over ${r.pick(SERVICES)} and retries three times.`,
  (r) => `Run ${r.pick(TOOLS)} before pushing, otherwise ${r.pick(SERVICES)} checks fail.`,
  (r) => `${r.pick(ENVS)} runs ${r.pick(VERSIONS)} with ${r.pick(SERVICES)} behind ${r.pick(SERVICES)}.`,
  (r) => `Prefers small pull requests with tests for ${r.pick(TOPICS)}.`,
  (r) => `Decided to keep ${r.pick(TOPICS)} in ${r.pick(DIRS)}/${r.pick(FILES)} so that ${r.pick(REASONS)}.`,
  (r) => `${r.pick(FILES)} pins ${r.pick(VERSIONS)}; do not upgrade without checking ${r.pick(TOPICS)}.`,
  (r) => `Bug in ${r.pick(NAMES)}: ${r.pick(TOPICS)} broke after the ${r.pick(TOOLS)} upgrade, fixed by reverting ${r.pick(FILES)}.`,
  (r) => `Convention: name ${r.pick(TOPICS)} helpers after what they return and keep them under ${r.pick(DIRS)}.`,
  (r) => `Deploys to ${r.pick(ENVS)} go through ${r.pick(SERVICES)} and need approval from the on-call engineer.`,
  (r) => `The user likes ${r.pick(TOOLS)} and dislikes ${r.pick(TOOLS)} for ${r.pick(TOPICS)}.`,
  (r) => `Constraint: ${r.pick(NAMES)} must stay compatible with ${r.pick(VERSIONS)} until the ${r.pick(SERVICES)} migration ends.`,
  (r) => `Tests for ${r.pick(TOPICS)} use a real ${r.pick(SERVICES)} in ${r.pick(ENVS)}, never mocks.`,
  (r) => `${r.pick(TOPICS)} is handled by ${r.pick(NAMES)} in ${r.pick(DIRS)}.`,
];

const QUERY_TEMPLATES: Template[] = [
  (r) => `how do we handle ${r.pick(TOPICS)}`,
  (r) => `${r.pick(TOOLS)} ${r.pick(TOPICS)}`,
  (r) => `why did we switch to ${r.pick(TOOLS)}`,
  (r) => `${r.pick(NAMES)} ${r.pick(SERVICES)}`,
  (r) => `which ${r.pick(SERVICES)} version runs in ${r.pick(ENVS)}`,
  (r) => `rules for ${r.pick(TOPICS)} in ${r.pick(DIRS)}`,
  (r) => `${r.pick(SERVICES)} retries`,
  (r) => `deploy ${r.pick(ENVS)} approval`,
];

/** One sentence of memory text. */
export function fragment(r: Rng): string {
  return r.pick(TEMPLATES)(r);
}

/** A search query like the ones recall issues (a few words, sometimes a question). */
export function query(r: Rng): string {
  return r.pick(QUERY_TEMPLATES)(r);
}

/** `count` distinct fragments, deterministic for a seed. */
export function fragmentPool(seed: number, count: number): string[] {
  const r = new Rng(seed);
  const seen = new Set<string>();
  let guard = 0;
  while (seen.size < count && guard++ < count * 50) seen.add(fragment(r));
  return [...seen];
}

/** Who and where a memory belongs to: skewed over repos, like real activity. */
export interface MemoryPlacement {
  user_id: string;
  space: 'project' | 'personal';
  repo: string | null;
  dir: string | null;
  category: (typeof CATEGORIES)[number];
  run_id: string;
}

export function placement(r: Rng): MemoryPlacement {
  const personal = r.next() < 0.1;
  return {
    user_id: r.pick(USERS),
    space: personal ? 'personal' : 'project',
    repo: personal ? null : REPOS[r.skewed(REPOS.length)]!,
    dir: personal ? null : r.pick(DIRS),
    category: r.pick(CATEGORIES),
    run_id: `run-${r.int(5000)}`,
  };
}

/** The pair of pool fragments memory `k` is made of; distinct pairs for k < pool²−pool. */
export function pairOf(k: number, poolSize: number): [number, number] {
  // A fixed odd multiplier spreads consecutive k over the pool; b is never a.
  const x = (k * 2654435761) % (poolSize * (poolSize - 1));
  const a = Math.floor(x / (poolSize - 1));
  let b = x % (poolSize - 1);
  if (b >= a) b++;
  return [a, b];
}

/** Text of memory `k`: two pool fragments, in one sentence each. */
export function memoryText(pool: readonly string[], k: number): string {
  const [a, b] = pairOf(k, pool.length);
  return `${pool[a]!} ${pool[b]!}`;
}
