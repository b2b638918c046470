/** The README's Dashboard section: a screen that fits 80×24 and every key the help bar names. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { it } from 'node:test';
import { helpItems } from '../../tui/help.js';
import type { Screen } from '../../tui/navigation.js';
import { repoRoot } from '../helpers/tmp.js';

function section(): string {
  const readme = fs.readFileSync(repoRoot('README.md'), 'utf8');
  const m = /^## Dashboard\n([\s\S]*?)(?=^## )/m.exec(readme);
  assert.ok(m, 'README has a Dashboard section');
  return m[1]!;
}

it('shows a dashboard capture that fits an 80×24 terminal', () => {
  const capture = /```text\n([\s\S]*?)\n```/.exec(section());
  assert.ok(capture, 'the section holds a text capture');
  const lines = capture[1]!.split('\n');
  assert.ok(lines.length <= 23, `${lines.length} lines`);
  for (const l of lines) assert.ok([...l].length <= 80, `wider than 80: ${l}`);
  for (const panel of ['memory daemon up', 'Capture', 'Memories', 'Pipeline', 'Recent captures', '/ search']) assert.ok(capture[1]!.includes(panel), panel);
});

it('documents every key the help bar shows', () => {
  const s = section();
  const screens: Screen[] = ['dashboard', 'search', 'detail', 'recent', 'help'];
  const items = [
    ...screens.flatMap((screen) => [false, true].flatMap((confirming) => helpItems({ screen, connection: 'up', confirming, canStartDaemon: true }))),
    ...helpItems({ screen: 'dashboard', connection: 'down', confirming: false, canStartDaemon: true }),
  ];
  for (const { key } of items) {
    if (key === 'type') continue;
    for (const k of key.split('/')) assert.ok(s.includes(`\`${k}\``), `README names the key ${k}`);
  }
});
