import assert from 'node:assert/strict';
import fs from 'node:fs';
import { it } from 'node:test';
import { withTable } from '../../scripts/config-table.js';
import { repoRoot } from '../helpers/tmp.js';

it('README configuration table matches the config schema (npm run docs regenerates it)', () => {
  const readme = fs.readFileSync(repoRoot('README.md'), 'utf8');
  assert.equal(readme, withTable(readme));
});

it('README gives the two fresh-machine commands and .ci/run runs the test command', () => {
  const readme = fs.readFileSync(repoRoot('README.md'), 'utf8');
  assert.match(readme, /npm ci && npm start/);
  assert.match(readme, /npm ci && npm test/);
  const ci = fs.readFileSync(repoRoot('.ci', 'run'), 'utf8');
  assert.match(ci, /^npm ci$/m);
  assert.match(ci, /^npm test$/m);
});
