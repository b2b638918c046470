/** Status answers and search hits shaped like the daemon's, for the dashboard's tests. */
import type { MemoryResult } from '../../daemon/client.js';

export const NOW = Date.parse('2026-05-04T12:00:00.000Z');

/** An ISO time `s` seconds before NOW. */
export function ago(s: number): string {
  return new Date(NOW - s * 1000).toISOString();
}

type Patch = Record<string, unknown>;

/** A status answer as daemon/status.ts builds it; sections in `patch` replace the defaults. */
export function statusFixture(patch: Patch = {}): Record<string, unknown> {
  return {
    daemon: { pid: 4242, version: '1.2.0', uptime_s: 3725, started_at: ago(3725), socket: '/home/u/.service/daemon.sock', home: '/home/u/.service' },
    capture: {
      state: 'capturing',
      paused_all: false,
      paused_sessions: ['b2c3d4e5-0000-4000-8000-000000000002'],
      session: 'capturing',
      sessions: [
        { session_id: 'a1b2c3d4-0000-4000-8000-000000000001', repo: 'github.com/acme/shop', state: 'capturing', pending: 3, last_activity: ago(30), last_flush: ago(600), memories: 4 },
        { session_id: 'b2c3d4e5-0000-4000-8000-000000000002', repo: 'github.com/acme/api', state: 'paused', pending: 0, last_activity: ago(7200), last_flush: null, memories: 0 },
      ],
    },
    memories: {
      total: 12,
      versions: 15,
      by_space: { project: 8, personal: 4 },
      by_scope: { repo: 8, dir: 2, user: 4, session: null },
      by_category: { decision: 3, constraint: 1, preference: 2, convention: 0, context: 1, fact: 2, note: 3 },
    },
    context: { cwd: '/work/shop', repo: 'github.com/acme/shop', dir: '.', session_id: 'a1b2c3d4-0000-4000-8000-000000000001' },
    journal: { pending_events: 3, segments: 1, bytes: 2048 },
    flush: { backlog_sessions: 1, last: { at: ago(600), session_id: 'a1b2c3d4-0000-4000-8000-000000000001', memories: 4 } },
    model: { id: 'Xenova/all-MiniLM-L6-v2', state: 'ready', mode: 'hybrid', backlog: 0, vector_index: null },
    jobs: { exports: [], imports: [] },
    recent: [
      { at: ago(300), session_id: 'a1b2c3d4-0000-4000-8000-000000000001', event: 'UserPromptSubmit', summary: 'move the checkout to Stripe' },
      { at: ago(20), session_id: 'a1b2c3d4-0000-4000-8000-000000000001', event: 'PostToolUse', summary: 'Bash' },
    ],
    last_error: null,
    ...patch,
  };
}

export function hit(id: string, content: string, extra: Partial<MemoryResult> = {}): MemoryResult & { score: number } {
  return {
    memory_id: id,
    content,
    score: 0.82,
    category: 'decision',
    space: 'project',
    repo: 'github.com/acme/shop',
    dir: '.',
    run_id: null,
    user_id: 'tester',
    created_at: ago(7200),
    updated_at: ago(7200),
    valid_from: ago(7200),
    valid_to: null,
    version: 1,
    metadata: {},
    source: { kind: 'remember' },
    ...extra,
  };
}
