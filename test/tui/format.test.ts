import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cell, formatAge, formatBytes, formatCount, formatDuration, formatPercent, fraction, oneLine, packTokens, progressBar, scopeLabel, shortId, shortRepo, wrapLines } from '../../tui/format.js';
import { ago, NOW } from './fixtures.js';

describe('dashboard formatting', () => {
  it('says how long ago, coarser as time passes', () => {
    assert.equal(formatAge(ago(3), NOW), 'just now');
    assert.equal(formatAge(ago(42), NOW), '42s ago');
    assert.equal(formatAge(ago(185), NOW), '3m ago');
    assert.equal(formatAge(ago(5 * 3600 + 10), NOW), '5h ago');
    assert.equal(formatAge(ago(2 * 86_400), NOW), '2d ago');
    assert.equal(formatAge(ago(90 * 86_400), NOW), new Date(NOW - 90 * 86_400_000).toISOString().slice(0, 10));
  });

  it('shows a time in the future (clock skew) as just now, and a missing one as a dash', () => {
    assert.equal(formatAge(new Date(NOW + 60_000).toISOString(), NOW), 'just now');
    assert.equal(formatAge(null, NOW), '-');
    assert.equal(formatAge('not a time', NOW), '-');
  });

  it('formats uptimes in two units at most', () => {
    assert.equal(formatDuration(42), '42s');
    assert.equal(formatDuration(125), '2m');
    assert.equal(formatDuration(3725), '1h02m');
    assert.equal(formatDuration(3 * 86_400 + 4 * 3600 + 59), '3d04h');
    assert.equal(formatDuration(-5), '0s');
  });

  it('formats counts and sizes', () => {
    assert.equal(formatCount(1234567), '1,234,567');
    assert.equal(formatBytes(512), '512 B');
    assert.equal(formatBytes(1536), '1.5 KB');
    assert.equal(formatBytes(12 * 1024 * 1024), '12 MB');
  });

  it('draws progress that is full only when done', () => {
    assert.equal(fraction(30, 120), 0.25);
    assert.equal(fraction(5, 0), 0, 'an unknown total is no progress');
    assert.equal(fraction(200, 100), 1);
    assert.equal(formatPercent(0.999), '99%');
    assert.equal(formatPercent(1), '100%');
    assert.equal(progressBar(0.25, 8), '██░░░░░░');
    assert.equal(progressBar(1, 4), '████');
    assert.equal(progressBar(-1, 3), '░░░');
  });

  it('cuts text to one line of a given width', () => {
    assert.equal(oneLine('  two\n lines  ', 20), 'two lines');
    assert.equal(oneLine('abcdefghij', 6), 'abcde…');
    assert.equal(cell('ab', 4), 'ab  ');
    assert.equal(cell('abcdef', 4), 'abc…');
  });

  it('wraps words, and marks where it cut', () => {
    assert.deepEqual(wrapLines('the quick brown fox jumps', 10, 5), ['the quick', 'brown fox', 'jumps']);
    assert.deepEqual(wrapLines('the quick brown fox jumps', 10, 2), ['the quick', 'brown fox…']);
    assert.deepEqual(wrapLines('abcdefghijkl', 5, 5), ['abcde', 'fghij', 'kl']);
    assert.deepEqual(wrapLines('one\n\ntwo', 10, 5), ['one', '', 'two']);
  });

  it('names scopes and repositories briefly', () => {
    assert.equal(shortRepo('github.com/acme/shop'), 'acme/shop');
    assert.equal(shortRepo('/home/u/projects/tool'), 'tool');
    assert.equal(shortRepo(null), '');
    assert.equal(scopeLabel({ space: 'project', repo: 'github.com/acme/shop' }), 'project · acme/shop');
    assert.equal(scopeLabel({ space: 'personal', repo: null }), 'personal');
    assert.equal(shortId('01a1fb41-8725-7000-9e1f-e7d06ed1fb7d'), '01a1fb41');
  });

  it('packs tokens into lines that fit, dropping the rest with an ellipsis', () => {
    assert.deepEqual(packTokens(['decision 3', 'note 3', 'fact 2'], 30, 2), ['decision 3 · note 3 · fact 2']);
    assert.deepEqual(packTokens(['decision 3', 'note 3', 'fact 2'], 20, 2), ['decision 3 · note 3', 'fact 2']);
    assert.deepEqual(packTokens(['aaaa', 'bbbb', 'cccc'], 9, 2), ['aaaa', 'bbbb · …']);
    assert.deepEqual(packTokens(['aaaa', 'bbbb', 'cccc'], 5, 2), ['aaaa', 'bbbb…'], 'the ellipsis never widens a line');
  });
});
