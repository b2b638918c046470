/**
 * kill -9 during a burst of 500 capture events loses none that were acknowledged (20 rounds).
 * Acknowledged = the capture request got its 200 answer. Right after the crash, every acknowledged
 * event must be a complete line of the journal on disk (what a restart replays: journal.test.ts
 * shows that replay keeps every complete line); then the daemon must restart cleanly on it.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { it } from 'node:test';
import { DaemonClient } from '../../daemon/client.js';
import { resolvePaths } from '../../engine/index.js';
import { startTestDaemon } from '../helpers/daemon.js';
import { lostAndDuplicated, type Ack } from '../helpers/journal.js';
import { tempDir } from '../helpers/tmp.js';

const ROUNDS = Number(process.env.CRASH_ROUNDS ?? 20);
const BURST = 500;

it(`loses no acknowledged capture when killed with SIGKILL mid-burst (${ROUNDS} rounds of ${BURST})`, async () => {
  const home = path.join(tempDir('crash-'), 'home');
  const acked = new Set<string>();
  for (let round = 0; round < ROUNDS; round++) {
    const d = await startTestDaemon({ home });
    const client = new DaemonClient({ socketPath: resolvePaths(home).socket, timeoutMs: 10_000 });
    const killAfter = 50 + Math.floor(Math.random() * 400);
    let ackedThisRound = 0;
    const ackedRound: Ack[] = [];
    let killed: Promise<void> | null = null;
    await Promise.all(
      Array.from({ length: BURST }, async (_, i) => {
        const marker = `round-${round}-event-${i}`;
        try {
          const r = await client.capture({ hook_event_name: 'PostToolUse', session_id: `crash-session-${round}`, cwd: '/tmp/crash-test', tool_name: 'Bash', tool_input: { command: marker }, tool_response: 'ok' });
          if (r.captured && typeof r.j === 'number') {
            acked.add(marker);
            ackedRound.push({ session: `crash-session-${round}`, j: r.j, marker });
            if (++ackedThisRound === killAfter) killed = d.kill9();
          }
        } catch {
          // Not acknowledged (the daemon died first): allowed to be lost.
        }
      }),
    );
    await (killed ?? d.kill9());
    // In the journal, or flushed into the store before the kill (then its segment may be gone).
    const { lost, duplicated } = lostAndDuplicated(home, ackedRound);
    assert.deepEqual(lost, [], `round ${round}: acknowledged events lost`);
    assert.deepEqual(duplicated, [], `round ${round}: a seq was handed out twice`);
    // Restart on the crashed journal: it replays (and flushes) what was captured.
    const again = await startTestDaemon({ home });
    const flushed = await again.client.flush({ session_id: `crash-session-${round}` });
    assert.ok(flushed, 'restarted and replayed');
    assert.equal(await again.stop(), 0);
  }
  assert.ok(acked.size >= ROUNDS * 50, 'the bursts were acknowledged before each kill');
});
