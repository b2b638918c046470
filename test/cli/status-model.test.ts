/** `service status` says why the model is unavailable and what to do (a typo in SERVICE_MODEL_DIR). */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cli, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { tempDir } from '../helpers/tmp.js';

describe('service status and an unusable model', () => {
  let d: TestDaemon;
  const typo = path.join(tempDir('models-'), 'modles');
  before(async () => {
    d = await startTestDaemon({ env: { SERVICE_MODEL_DIR: typo } });
  });
  after(async () => {
    await d?.stop();
  });

  it('shows the reason and the fix in text and JSON', async () => {
    await d.client.remember({ text: 'We deploy on Fridays only after the freeze is lifted.', cwd: d.home });
    let s = await cli(['status', '--json'], d.env, d.home);
    for (let i = 0; i < 100 && (JSON.parse(s.stdout) as { model: { state: string } }).model.state !== 'unavailable'; i++) {
      await cli(['search', 'deploy', '--scope', 'user'], d.env, d.home);
      await new Promise((r) => setTimeout(r, 100));
      s = await cli(['status', '--json'], d.env, d.home);
    }
    const m = (JSON.parse(s.stdout) as { model: { state: string; fix: string } }).model;
    assert.equal(m.state, 'unavailable');
    assert.match(m.fix, new RegExp(`SERVICE_MODEL_DIR names ${typo.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}, which does not exist`));
    const text = await cli(['status'], d.env, d.home);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^ {2}why {6}cannot load the model folder/m);
    assert.match(text.stdout, /^ {2}fix {6}SERVICE_MODEL_DIR names .*service config set model_dir <folder>/m);
  });
});
