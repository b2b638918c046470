/** Browse and edit: `service list` (scope, category, since), `service show`, `service edit` ($EDITOR or --content). */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cli, makeRepo, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import type { CommandContext } from '../../cli/command.js';
import { fitLine } from '../../cli/commands/memory.js';
import { tempDir } from '../helpers/tmp.js';

describe('service list, show and edit', () => {
  let d: TestDaemon;
  let cwd: string;
  let id: string;
  before(async () => {
    d = await startTestDaemon();
    cwd = makeRepo();
    id = (await d.client.remember({ text: 'The checkout service retries Stripe calls three times.', cwd, category: 'decision' })).results[0]!.memory_id;
    await d.client.remember({ text: 'I prefer small pull requests.', cwd, personal: true, category: 'preference' });
  });
  after(async () => {
    await d?.stop();
  });

  it('lists newest first by scope, category and age', async () => {
    const all = JSON.parse((await cli(['list', '--json'], d.env, cwd)).stdout) as { results: { memory_id: string; content: string }[] };
    assert.equal(all.results.length, 2);
    assert.match(all.results[0]!.content, /small pull requests/, 'newest first');
    const repo = JSON.parse((await cli(['list', '--scope', 'repo', '--json'], d.env, cwd)).stdout) as { results: { memory_id: string }[] };
    assert.deepEqual(repo.results.map((m) => m.memory_id), [id]);
    const prefs = await cli(['list', '--category', 'preference'], d.env, cwd);
    assert.match(prefs.stdout, /\[preference\/personal\] +I prefer small pull requests\./);
    assert.doesNotMatch(prefs.stdout, /Stripe/);
    const future = await cli(['list', '--since', '2999-01-01'], d.env, cwd);
    assert.match(future.stdout, /^No memories since 2999-01-01T00:00:00\.000Z\.$/m);
  });

  it('shows one memory and edits it in $EDITOR and with --content; history keeps both', async () => {
    const shown = await cli(['show', id], d.env, cwd);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /^The checkout service retries Stripe calls three times\.$/m);
    assert.match(shown.stdout, new RegExp(`^id {8}${id} \\(version 1\\)$`, 'm'));

    const editor = path.join(tempDir('editor-'), 'ed.sh');
    fs.writeFileSync(editor, '#!/bin/sh\nsed -i "s/three times/five times/" "$1"\n', { mode: 0o755 });
    const edited = await cli(['edit', id], { ...d.env, EDITOR: editor }, cwd);
    assert.equal(edited.code, 0, edited.stderr);
    assert.match(edited.stdout, /updated .* to version 2/);
    assert.equal((await d.client.get(id)).content, 'The checkout service retries Stripe calls five times.');

    const same = await cli(['edit', id, '--content', 'The checkout service retries Stripe calls five times.'], d.env, cwd);
    assert.match(same.stdout, /no change/);
    const noEditor = await cli(['edit', id], { ...d.env, EDITOR: '', VISUAL: '' }, cwd);
    assert.equal(noEditor.code, 2);
    assert.match(noEditor.stderr, /set \$EDITOR/);
    const failing = await cli(['edit', id], { ...d.env, EDITOR: 'false' }, cwd);
    assert.equal(failing.code, 1);
    assert.match(failing.stderr, /nothing was changed/);

    const h = await d.client.history(id);
    assert.deepEqual(h.versions.map((v) => v.content), ['The checkout service retries Stripe calls three times.', 'The checkout service retries Stripe calls five times.']);
  });

  it('prints long memories whole in a pipe, and fits them to the terminal on one', async () => {
    const long = `Decision: the release checklist is ${'long and detailed, '.repeat(12)}and ends with tagging main.`;
    const longId = (await d.client.remember({ text: long, cwd, category: 'decision' })).results[0]!.memory_id;
    const listed = await cli(['list'], d.env, cwd);
    assert.ok(listed.stdout.includes(long), listed.stdout);
    const found = await cli(['search', 'release checklist tagging'], d.env, cwd);
    assert.ok(found.stdout.includes(`${long}  (`), found.stdout);
    assert.ok((await cli(['history', longId], d.env, cwd)).stdout.includes(long));
    const tty = (columns: number) => ({ io: { stdout: { isTTY: true, columns } } }) as unknown as CommandContext;
    const line = fitLine(tty(120), '0.91  [decision/project] ', long, `  (just now, ${longId})`);
    assert.equal(line.length, 120);
    assert.match(line, /… {2}\(just now, /);
    assert.equal(fitLine(tty(10), 'head ', long).length, 5 + 20, 'never less than 20 characters of content');
    assert.equal(fitLine({ io: { stdout: {} } } as unknown as CommandContext, 'x ', long), `x ${long}`);
  });
});
