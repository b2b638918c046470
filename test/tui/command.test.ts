/** `service` / `service tui` outside a terminal: a clear message, never a broken dashboard. */
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { cli, testEnv } from '../helpers/daemon.js';
import { tempDir } from '../helpers/tmp.js';

describe('the dashboard command', () => {
  const env = testEnv(path.join(tempDir('tui-cmd-'), 'home'));

  it('is what plain `service` runs, and asks for a terminal when there is none', async () => {
    for (const args of [[], ['tui']]) {
      const r = await cli(args, env);
      assert.equal(r.code, 2, `service ${args.join(' ')} exits with the usage code`);
      assert.match(r.stderr, /the dashboard needs an interactive terminal\. Try "service status"/);
      assert.equal(r.stdout, '', 'nothing on stdout for a pipe');
    }
  });

  it('points --json at service status, and is listed in the help', async () => {
    const r = await cli(['tui', '--json'], env);
    assert.equal(r.code, 2);
    const e = (JSON.parse(r.stdout) as { error: { code: string; message: string } }).error;
    assert.equal(e.code, 'USAGE', 'with --json the error is JSON on stdout');
    assert.match(e.message, /service status --json/);
    const help = await cli(['--help'], env);
    assert.match(help.stdout, /^ {2}tui +the dashboard: status, pause\/resume, live search, forget/m);
  });
});
