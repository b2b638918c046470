/** `service pause` (and /memory:pause) pauses the whole repository: every session, new ones, across restarts. */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { cli, makeRepo, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';

const prompt = (session: string, cwd: string) => ({ hook_event_name: 'UserPromptSubmit', session_id: session, cwd, prompt: 'move the checkout to Stripe' });

describe('repository-wide pause', () => {
  let d: TestDaemon | undefined;
  after(async () => {
    await d?.stop();
  });

  it('pauses every session of the repository until resumed, and only that repository', async () => {
    d = await startTestDaemon();
    const shop = makeRepo();
    const blog = makeRepo('git@github.com:acme/blog.git');
    assert.equal((await d.client.capture(prompt('s-1', shop))).captured, true);
    const p = await cli(['pause'], d.env, shop);
    assert.equal(p.code, 0, p.stderr);
    assert.match(p.stdout, /Capture paused for repository github\.com\/acme\/shop: every session there, new ones too/);
    assert.deepEqual(await d.client.capture(prompt('s-1', shop)), { captured: false, paused: true });
    assert.deepEqual(await d.client.capture(prompt('s-2', shop)), { captured: false, paused: true }, 'a new session in the same repository');
    assert.equal((await d.client.capture(prompt('s-3', blog))).captured, true, 'another repository still captures');

    const home = d.home;
    await d.stop();
    d = await startTestDaemon({ home });
    assert.deepEqual(await d.client.capture(prompt('s-4', shop)), { captured: false, paused: true }, 'survives a restart');
    const s = JSON.parse((await cli(['status', '--json'], d.env, shop)).stdout) as { capture: { paused_repos: string[] } };
    assert.deepEqual(s.capture.paused_repos, ['github.com/acme/shop']);

    const r = await cli(['resume'], d.env, shop);
    assert.equal(r.code, 0, r.stderr);
    assert.equal((await d.client.capture(prompt('s-4', shop))).captured, true);

    const bogus = await cli(['pause', '--session', 'made-up-session'], d.env, shop);
    assert.equal(bogus.code, 5, bogus.stderr);
    assert.match(bogus.stderr, /no agent session made-up-session/);
  });
});
