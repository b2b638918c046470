/**
 * Project documents (daemon/documents.ts): the instruction files a session read and the Markdown it
 * wrote are kept as records of the repository, searchable like episodes; the same text read again
 * writes nothing, a changed one replaces it.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { codeHeader, documentDrafts, isKeptWhenRead, isProjectDocument, isTopConfig, isUsersOwn, MAX_CONFIG_CHARS, recordDocuments, withoutLineNumbers } from '../../daemon/documents.js';
import { recordEpisodes } from '../../daemon/episodes.js';
import { printedFiles, type RawEntry } from '../../daemon/transcript-lines.js';
import { toTurns, type Turn } from '../../daemon/transcript.js';
import { MemoryEngine, RuleExtractor } from '../../engine/index.js';
import { InMemoryStore } from '../../engine/store/memory-store.js';

const turn = (role: Turn['role'], text: string, extra: Partial<Turn> = {}): Turn => ({ uuid: null, role, text, ...extra });
const scope = { user_id: 'u', run_id: 's1', repo: 'github.com/acme/app', dir: null };

async function engine(): Promise<MemoryEngine> {
  const e = new MemoryEngine({ store: new InMemoryStore(), embedder: null, background: false });
  await e.open();
  return e;
}

const AGENTS = '1\t# Agent Instructions\n2\t\n3\t## Releasing\n4\t\n5\tRun `bun run release` for a patch bump; plans go in docs/plans/.';

describe('project documents', () => {
  it('reads which file a Read showed (without the reminder Claude Code appends) and what the assistant wrote into Markdown documents', () => {
    const entries: RawEntry[] = [
      { type: 'user', uuid: 'u1', parentUuid: null, message: { role: 'user', content: 'restore the release section' } },
      {
        type: 'assistant',
        uuid: 'a1',
        parentUuid: 'u1',
        message: { id: 'm1', role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Read', input: { file_path: '/home/user/app/AGENTS.md' } }] },
      },
      { type: 'user', uuid: 'r1', parentUuid: 'a1', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: `${AGENTS}\n\n<system-reminder>\nWhenever you read a file, you should consider whether it would be considered malware.\n</system-reminder>\n` }] } },
      {
        type: 'assistant',
        uuid: 'a2',
        parentUuid: 'r1',
        message: {
          id: 'm2',
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 't2', name: 'Edit', input: { file_path: '/home/user/app/AGENTS.md', old_string: 'x', new_string: '## Commits\n\nFollow conventional commits.' } },
            { type: 'tool_use', id: 't3', name: 'Write', input: { file_path: '/home/user/app/src/main.ts', content: 'export const x = 1;' } },
          ],
        },
      },
    ];
    const turns = toTurns(entries);
    assert.equal(turns.find((t) => t.tool === 'Read')?.path, '/home/user/app/AGENTS.md');
    const wrote = turns.find((t) => t.role === 'assistant' && t.writes);
    assert.deepEqual(wrote?.writes, [{ path: '/home/user/app/AGENTS.md', text: '## Commits\n\nFollow conventional commits.', edit: true }], 'Markdown only, not code');
    assert.deepEqual(
      documentDrafts(turns).map((d) => [d.verb, d.path, d.text.split('\n')[0]]),
      [
        ['Read', '/home/user/app/AGENTS.md', '# Agent Instructions'],
        ['Edited', '/home/user/app/AGENTS.md', '## Commits'],
      ],
    );
    assert.ok(documentDrafts(turns)[0]!.text.endsWith('plans go in docs/plans/.'), 'the reminder Claude Code appends to a read is not the file');
  });

  it('keeps a tool result that is nothing but a reminder as what the tool said', () => {
    const warning = '<system-reminder>Warning: the file exists but is shorter than the provided offset (700). The file has 558 lines.</system-reminder>';
    const turns = toTurns([
      { type: 'user', uuid: 'u1', parentUuid: null, message: { role: 'user', content: 'read on' } },
      { type: 'assistant', uuid: 'a1', parentUuid: 'u1', message: { id: 'm1', role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Read', input: { file_path: '/home/user/app/NOTES.md', offset: 700 } }] } },
      { type: 'user', uuid: 'r1', parentUuid: 'a1', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: warning }] } },
    ]);
    assert.equal(turns.find((t) => t.role === 'tool')?.text, warning);
  });

  it('reads a file a shell command only printed (cat, head, sed -n) as that file read; not a piped, failed or code file', () => {
    const call = (id: string, command: string) => ({ type: 'tool_use', id, name: 'Bash', input: { command } });
    const result = (uuid: string, parent: string, id: string, content: string, is_error = false): RawEntry => ({ type: 'user', uuid, parentUuid: parent, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content, is_error }] } });
    const scripts = '    "scripts": {\n        "test": "phpunit",\n        "analyse": "phpstan analyse --memory-limit=1G"\n    }';
    const turns = toTurns([
      { type: 'user', uuid: 'u1', parentUuid: null, message: { role: 'user', content: 'which checks does composer run' } },
      {
        type: 'assistant',
        uuid: 'a1',
        parentUuid: 'u1',
        // Real shapes (blind-28, technocore): a sed range over composer.json, a line range of the README.
        message: { id: 'm1', role: 'assistant', content: [call('t1', `sed -n '/"scripts"/,/^    }/p' composer.json`), call('t2', "sed -n '243,275p' README.md"), call('t3', 'cat package.json | jq .scripts'), call('t4', 'head -5 Makefile'), call('t5', 'cat src/main.ts')] },
      },
      result('r1', 'a1', 't1', scripts),
      result('r2', 'r1', 't2', '## Releasing\nTag vX.Y.Z and push the tag.'),
      result('r3', 'r2', 't3', '{ "test": "vitest" }'),
      result('r4', 'r3', 't4', 'head: Makefile: No such file or directory', true),
      result('r5', 'r4', 't5', 'export const x = 1;'),
    ]);
    assert.deepEqual(
      documentDrafts(turns).map((d) => [d.verb, d.path, d.text]),
      [
        ['Read', 'composer.json', scripts.trim()],
        ['Read', 'README.md', '## Releasing\nTag vX.Y.Z and push the tag.'],
      ],
    );
  });

  it('reads apart the files one command printed with a marker echoed between them; not prints with no marker, a pipe, or a marker the output lacks', () => {
    // Real shapes: blind-48 (a file with no last newline runs into the marker, a listing after the last one), blind-42 (`| head -80`).
    assert.deepEqual(printedFiles('cat /w/pnpm-workspace.yaml && echo "---" && cat /w/package.json && echo "---" && ls /w/artifacts/', 'packages:\n  - lib/*\nminimumReleaseAge: 1440---\n{\n  "private": true\n}\n---\napi-server\ngameforge'), [
      { path: '/w/pnpm-workspace.yaml', text: 'packages:\n  - lib/*\nminimumReleaseAge: 1440' },
      { path: '/w/package.json', text: '{\n  "private": true\n}' },
    ]);
    assert.deepEqual(printedFiles('cat .replit && echo "---" && cat replit.md | head -80', 'run = "pnpm dev"\n---\n# Notes'), [
      { path: '.replit', text: 'run = "pnpm dev"' },
      { path: 'replit.md', text: '# Notes' },
    ]);
    assert.deepEqual(printedFiles("echo '=== a ==='; cat a.yml 2>/dev/null; echo '=== b ==='; cat b.yml", '=== a ===\ncat: a.yml: No such file or directory\n=== b ===\nx: 1'), [{ path: 'b.yml', text: 'x: 1' }], 'a file cat could not print is left out');
    assert.equal(printedFiles('cat src/main.tsx && cat index.html', 'a\nb'), null, 'two prints and no marker between them');
    assert.equal(printedFiles('cat a.json && echo "---" && cat b.json | grep name', 'a\n---\nb'), null, 'a pipe other than head');
    assert.equal(printedFiles('cat a.json && echo "---" && cat b.json', 'a\nb'), null, 'the marker is not in the output');
    assert.equal(printedFiles('cat a.json', 'a'), null, 'one file is printedFile’s');
    assert.equal(printedFiles('cat a.json && echo "---" && rm -rf x && cat b.json', 'a\n---\nb'), null, 'another step runs into a print');
  });

  it('keeps a small configuration file read at the top of the session’s folder or in a dot folder there; not deeper, not a lock file, a local setting or a long data file', () => {
    const short = 'x: 1';
    for (const [p, dir] of [['/w/app/tsconfig.json', '/w/app'], ['/w/app/.claude-plugin/marketplace.json', '/w/app'], ['C:\\w\\app\\pnpm-workspace.yaml', 'C:\\w\\app'], ['marketplace.json', undefined], ['./.replit', undefined], ['/w/app/.env.example', '/w/app/'], ['/w/app/schema.prisma', '/w/app']] as const) {
      assert.ok(isTopConfig(p, short, dir), p);
    }
    for (const [p, dir] of [['/w/app/src/config.yml', '/w/app'], ['src/config.yml', undefined], ['/w/app/package-lock.json', '/w/app'], ['/w/app/pnpm-lock.yaml', '/w/app'], ['/w/app/.claude/settings.local.json', '/w/app'], ['/w/other/x.json', '/w/app'], ['/w/app/x.json', undefined], ['/w/app/.env', '/w/app'], ['/w/app/main.ts', '/w/app'], ['/w/app/a/b/.x/c.json', '/w/app']] as const) {
      assert.ok(!isTopConfig(p, short, dir), p);
    }
    assert.ok(!isTopConfig('/w/app/data.json', 'x'.repeat(MAX_CONFIG_CHARS + 1), '/w/app'), 'a long file is data');
    const drafts = documentDrafts([
      turn('tool', '1\t{ "name": "orin-dx-agent-plugins" }', { tool: 'Read', path: '/w/app/marketplace.json', cwd: '/w/app' }),
      turn('tool', '$ cat a && echo ---', { tool: 'Bash', prints: [{ path: 'tsconfig.json', text: '{ "strict": true }' }, { path: 'src/x.json', text: '{}' }, { path: 'NOTES.md', text: '# Notes' }], cwd: '/w/app' }),
      turn('tool', '{ "a": 1 }', { tool: 'Read', path: '/w/app/src/fixtures/a.json', cwd: '/w/app' }),
    ]);
    assert.deepEqual(drafts.map((d) => [d.path, d.text]), [['/w/app/marketplace.json', '{ "name": "orin-dx-agent-plugins" }'], ['tsconfig.json', '{ "strict": true }'], ['NOTES.md', '# Notes']]);
  });

  it('keeps what a source file read from its first line says of itself in its header comment or docstring, without licence lines; never its code', () => {
    // Real shapes: a Python module docstring (blind-52), a script's header (blind-25), a Go package comment under a licence (blind-10), JSDoc (blind-37).
    const py = '#!/usr/bin/env python3\n"""FROZEN CONTRACTS. Do not change without telling all four owners.\n\nThe Report JSON schema is frozen.\n"""\nimport json\n# not the header\n';
    assert.equal(codeHeader('autoimplants/contracts.py', py), 'FROZEN CONTRACTS. Do not change without telling all four owners.\n\nThe Report JSON schema is frozen.');
    const sh = '#!/bin/bash\n# Archive the iOS app (Release, signed) and upload it to TestFlight.\n#\n#   mise run release:ios\nset -euo pipefail\n';
    assert.equal(codeHeader('Scripts/release-ios.sh', sh), 'Archive the iOS app (Release, signed) and upload it to TestFlight.\n\n  mise run release:ios');
    const go = '// Copyright (C) NHR@FAU, University Erlangen-Nuremberg.\n// All rights reserved. Use of this source code is governed by a MIT-style\n// license that can be found in the LICENSE file.\n\n// Package metricstore keeps the metrics in memory and restores them from checkpoints on startup.\npackage metricstore\n';
    assert.equal(codeHeader('internal/metricstore/store.go', go), 'Package metricstore keeps the metrics in memory and restores them from checkpoints on startup.');
    const js = '/**\n * Payments Module for Rhythm Chamber\n *\n * CURRENT STATUS: Free MVP (Stateless)\n */\nexport const pay = () => {};\n';
    assert.equal(codeHeader('js/payments.js', js), 'Payments Module for Rhythm Chamber\n\nCURRENT STATUS: Free MVP (Stateless)');
    assert.equal(codeHeader('src/main.ts', 'import x from "y";\n// a comment after code\n'), null, 'a file that opens with code');
    assert.equal(codeHeader('src/util.c', '#include <stdio.h>\n/* Not a header: code came first. */\n'), null, 'a preprocessor line is code');
    assert.equal(codeHeader('src/a.ts', '// utils\nexport {};'), null, 'a header that says too little');
    assert.equal(codeHeader('src/a.ts', '// Licensed under the Apache License, Version 2.0 (the "License");\n// you may not use this file except in compliance with the License.\nexport {};'), null, 'a licence alone');
    assert.equal(codeHeader('notes/a.txt', '# A text file that has a long enough first line to be a header\n'), null, 'not source code');
    const read = (text: string, extra: Partial<Turn>): Turn => turn('tool', text, { tool: 'Read', path: '/w/app/contracts.py', ...extra });
    assert.deepEqual(documentDrafts([read('     1→"""FROZEN CONTRACTS. Do not change without telling all four owners."""\n     2→import json', {})]).map((d) => d.text), ['FROZEN CONTRACTS. Do not change without telling all four owners.']);
    assert.deepEqual(documentDrafts([read('    40→"""Not the top of the file, so not its header, whatever it says."""', {})]), [], 'a read from line 40');
    assert.deepEqual(documentDrafts([turn('tool', '$ tail -5 x.py\n"""A tail is not the top of the file either, whatever it says."""', { tool: 'Bash', path: 'x.py' })]), [], 'a tail');
  });

  it('keeps the project’s Markdown, its Claude Code settings and build, CI and release files read, and Markdown written; never code read, Claude Code’s own files or dependencies', () => {
    const kept = ['/r/AGENTS.md', 'C:\\r\\CLAUDE.md', '/r/docs/CONTRIBUTING.md', '/r/e2e/README.md', '/r/.github/copilot-instructions.md', '/r/docs/design.md', '/r/notes/vamp.md', '/r/.cursorrules'];
    kept.push('/r/.github/workflows/ci.yml', 'C:\\r\\.github\\workflows\\deploy.yaml', '/r/package.json', '/r/packages/cli/package.json', '/r/Makefile', '/r/Cargo.toml', '/r/pyproject.toml', 'C:\\r\\build.gradle', '/r/app/build.gradle.kts', '/r/settings.gradle', '/r/gradle.properties', '/r/pom.xml', '/r/.goreleaser.yaml', '/r/docker-compose.dev.yml', '/r/.pre-commit-config.yaml', '/r/.markdownlint.json', '/r/.claude/settings.json', 'C:\\r\\.claude\\settings.json', '/r/.mcp.json');
    kept.push('/r/composer.json', '/r/phpstan.neon.dist', '/r/rules.neon', '/r/phpunit.xml.dist', '/r/mise.toml', '/r/.tool-versions', '/r/deno.json', '/r/ruff.toml', '/r/compose.dev.yml', '/r/fly.toml', '/r/vercel.json', '/r/Procfile', '/r/.circleci/config.yml', '/r/Jenkinsfile');
    for (const p of kept) assert.ok(isKeptWhenRead(p), p);
    const notKept = ['/r/src/main.ts', '/r/package-lock.json', '/r/src/config.yml', '/r/tsconfig.json', '/r/gradle/wrapper/gradle-wrapper.jar', '/r/src/main/java/Build.gradle.java', '/home/u/.claude/projects/x/tool-results/b1.txt', '/r/node_modules/x/README.md', '/r/node_modules/x/package.json', '/r/.vscode/settings.json', '/r/.claude/settings.local.json', '/r/composer.lock', '/r/src/neon.php', '/r/docs/compose.txt'];
    notKept.push('/home/u/.claude/plugins/cache/p/README.md', '/home/u/.claude/plans/plan.md');
    kept.push('/Users/ann/app/.claude/CLAUDE.md', '/home/ann/app/.claude/settings.json');
    for (const p of kept) assert.ok(isKeptWhenRead(p), p);
    for (const p of notKept) assert.ok(!isKeptWhenRead(p), p);
    assert.ok(isProjectDocument('/r/docs/design.md') && isProjectDocument('D:\\r\\.planning\\phases\\14-CONTEXT.md'));
    for (const p of ['/home/u/.claude/plans/plan.md', '/r/node_modules/x/README.md', '/r/src/main.ts']) assert.ok(!isProjectDocument(p), p);
    const drafts = documentDrafts([turn('tool', '1\tconst x = 1;', { tool: 'Read', path: '/r/src/main.ts' }), turn('tool', 'no such file', { tool: 'Read', path: '/r/AGENTS.md', ok: false })]);
    assert.deepEqual(drafts, []);
    assert.equal(withoutLineNumbers('     1→# Title\n     2→Body'), '# Title\nBody');
  });

  it('keeps no file of the user’s own Claude Code folder as the project’s, unless it names the project', async () => {
    const own = ['/Users/ann/.claude/CLAUDE.md', '/home/ann/.claude/settings.json', 'C:\\Users\\ann\\.claude\\skills\\x\\SKILL.md', '/root/.claude/agents/qa.md', '~/.claude/CLAUDE.md', join(homedir(), '.claude', 'CLAUDE.md')];
    for (const p of own) assert.ok(isUsersOwn(p, 'app'), p);
    for (const p of ['/Users/ann/app/.claude/CLAUDE.md', '/Users/ann/app/docs/x.md', '/Users/ann/.claude/skills/app/SKILL.md', '/Users/ann/.claude/handoffs/-Users-ann-dev-app.md']) assert.ok(!isUsersOwn(p, 'app'), p);
    assert.ok(isUsersOwn('/Users/ann/.claude/app/notes.md', 'app') && isUsersOwn('/Users/ann/.claude/skills/x.md', 'skills'), 'the folder kind right under .claude names nothing');
    const e = await engine();
    const read = (path: string, text: string): Turn => turn('tool', text, { tool: 'Read', path });
    const files = [read('/Users/ann/.claude/CLAUDE.md', '# Mine\nAlways answer in French.'), read('/Users/ann/app/AGENTS.md', '# App\nRun make check before a commit.')];
    assert.equal(await recordDocuments(e, files, scope), 1);
    const rows = (await e.list({ filter: { repo: scope.repo }, limit: 10 })).results.map((r) => r.content);
    assert.ok(rows.some((c) => c.includes('make check')) && !rows.some((c) => c.includes('French')), JSON.stringify(rows));
  });

  it('stores a document read once per text, replaces it when the text changed, and search finds what it says', async () => {
    const e = await engine();
    const read = (text: string): Turn[] => [turn('user', 'how do we release?', { kind: 'prompt' }), turn('tool', text, { tool: 'Read', path: '/home/user/app/AGENTS.md' }), turn('assistant', 'See AGENTS.md.')];
    assert.equal(await recordDocuments(e, read(AGENTS), scope), 1);
    assert.equal(await recordDocuments(e, read(AGENTS), { ...scope, run_id: 's2' }), 0, 'the same text read in another session');
    const docs = async () => (await e.list({ filter: { repo: scope.repo, metadata: { doc: 'AGENTS.md' } }, limit: 10 })).results;
    assert.deepEqual(
      (await docs()).map((r) => r.content),
      ['Read: AGENTS.md\nText: # Agent Instructions\n## Releasing\nRun `bun run release` for a patch bump; plans go in docs/plans/.'],
    );
    assert.equal(await recordDocuments(e, read(AGENTS.replace('patch', 'minor')), scope), 1);
    assert.deepEqual(
      (await docs()).map((r) => /minor/.test(r.content)),
      [true],
      'what the file says now replaces what it said',
    );
    const hits = (await e.search({ query: 'bun run release', filter: { repo: scope.repo }, top_k: 3 })).results;
    assert.match(hits[0]?.row.content ?? '', /bun run release/);
  });

  it('keeps the instructions of a slash command the user ran as one record per command, replaced when they change; no rule reads them', async () => {
    const e = await engine();
    const skill = (steps: string): RawEntry[] => [
      { type: 'user', uuid: 'c1', parentUuid: null, message: { role: 'user', content: '<command-message>start</command-message>\n<command-name>/start</command-name>\n<command-args>eng-2228</command-args>' } },
      { type: 'user', uuid: 'x1', parentUuid: 'c1', isMeta: true, message: { role: 'user', content: [{ type: 'text', text: `Start working on Linear ticket eng-2228.\n## Steps\n${steps}` }] } },
      { type: 'assistant', uuid: 'a1', parentUuid: 'x1', message: { id: 'm1', role: 'assistant', content: [{ type: 'text', text: 'Worktree ready.' }] } },
    ];
    const steps = '- Always create the worktree under .claude/worktrees/<branch> from a freshly fetched origin/main.';
    const turns = toTurns(skill(steps));
    assert.deepEqual(documentDrafts(turns), [{ path: '/start', verb: 'Command', text: `Start working on Linear ticket eng-2228.\n## Steps\n${steps}` }]);
    assert.equal(await recordDocuments(e, turns, scope), 1);
    assert.equal(await recordDocuments(e, toTurns(skill(steps)), { ...scope, run_id: 's2' }), 0, 'the same command run again');
    assert.equal(await recordDocuments(e, toTurns(skill(steps.replace('origin/main', 'origin/develop'))), scope), 1);
    const docs = (await e.list({ filter: { repo: scope.repo, metadata: { doc: '/start' } }, limit: 10 })).results;
    assert.deepEqual(
      docs.map((r) => r.content.split('\n')[0] + (/origin\/develop/.test(r.content) ? ' (now)' : '')),
      ['Command: /start (now)'],
    );
    const hits = (await e.search({ query: 'where do the ticket worktrees live', filter: { repo: scope.repo }, top_k: 3 })).results;
    assert.match(hits[0]?.row.content ?? '', /^Command: \/start/);
    // The instructions are the command's template, not the user's words: no rule reads them.
    const candidates = await new RuleExtractor().extract(turns.map((t) => ({ role: t.role, text: t.text, ...(t.tool ? { tool: t.tool } : {}), ...(t.kind ? { kind: t.kind } : {}) })));
    assert.deepEqual(candidates, []);
  });

  it('keeps a compaction summary’s recap as one record per session, replaced by its next summary, and search finds what the compacted conversation established', async () => {
    const e = await engine();
    const summary = (limit: number): string =>
      [
        'This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.',
        '',
        'Summary:',
        '1. Primary Request and Intent:',
        '   - Switch the .clang-format to the Linux kernel style with 2-space indentation (spaces, not tabs).',
        '2. Key Technical Concepts:',
        `   - ColumnLimit ${limit}; AttributeMacros [GKYL_CU_DH] so CUDA signatures parse.`,
        '3. Files and Code Sections:',
        '   - ci/format-all.sh: strips trailing commas, then runs clang-format 18.1.8 on tracked C files.',
        '4. Errors and fixes:',
        '   - clang-format has no BasedOnStyle: Linux; the kernel config is written out in full instead.',
        '6. All user messages:',
        '   - "yes do it"',
        '7. Pending Tasks:',
        '   - Reformat the vlasov folder.',
        '8. Current Work:',
        '   - Editing ci/add-trailing-commas.py.',
      ].join('\n');
    const entries = (text: string, id: string): RawEntry[] => [
      { type: 'user', uuid: `s${id}`, parentUuid: null, isCompactSummary: true, message: { role: 'user', content: text } },
      { type: 'user', uuid: `u${id}`, parentUuid: `s${id}`, message: { role: 'user', content: 'carry on' } },
      { type: 'assistant', uuid: `a${id}`, parentUuid: `u${id}`, message: { id: `m${id}`, role: 'assistant', content: [{ type: 'text', text: 'Done.' }] } },
    ];
    const [draft] = documentDrafts(toTurns(entries(summary(80), '1')));
    assert.equal(draft?.verb, 'Summary');
    assert.deepEqual(
      draft.text.split('\n').filter((l) => l.endsWith(':')),
      ['Primary Request and Intent:', 'Key Technical Concepts:', 'Errors and fixes:', 'Files and Code Sections:'],
      'the recap sections, the files last; not the opening line, the quoted messages, what was pending or under way',
    );
    assert.doesNotMatch(draft.text, /continued from a previous|yes do it|vlasov|add-trailing-commas/);
    assert.equal(await recordDocuments(e, toTurns(entries(summary(80), '1')), scope), 1);
    assert.equal(await recordDocuments(e, toTurns(entries(summary(80), '1')), scope), 0, 'the same summary again');
    assert.equal(await recordDocuments(e, toTurns(entries(summary(100), '2')), scope), 1, 'compacted again');
    assert.equal(await recordDocuments(e, toTurns(entries(summary(120), '3')), { ...scope, run_id: 's2' }), 1, 'another session');
    const docs = (await e.list({ filter: { repo: scope.repo, category: 'note' }, limit: 10 })).results.map((r) => r.content.split('\n')[0]).sort();
    assert.deepEqual(docs, ['Summary: the conversation before compaction, session s1', 'Summary: the conversation before compaction, session s2']);
    const hits = (await e.search({ query: 'which clang-format version does format-all.sh run', filter: { repo: scope.repo }, top_k: 1 })).results;
    assert.match(hits[0]?.row.content ?? '', /^Summary: the conversation before compaction[^]*clang-format 18\.1\.8/);
  });

  it('keeps one record of a file read in the repository and in a worktree of it, and replaces a record keyed by its absolute path', async () => {
    const e = await engine();
    const readAt = (p: string, text: string): Turn[] => [turn('user', 'what did we decide?', { kind: 'prompt' }), turn('tool', text, { tool: 'Read', path: p })];
    const adr = '# 0017. Pin the MCP extra below 2.0\nStatus: accepted';
    // A record written before documents were keyed by their name in the repository.
    await e.add({ content: `Read: docs/adr/0017.md\nText: ${adr.replace('accepted', 'proposed')}`, category: 'note', repo: scope.repo, user_id: 'u', metadata: { kind: 'episode', doc: '/home/user/app/docs/adr/0017.md', verb: 'Read' } });
    assert.equal(await recordDocuments(e, readAt('/home/user/app/docs/adr/0017.md', adr), scope), 1);
    assert.equal(await recordDocuments(e, readAt('/home/user/app-mcp-2/docs/adr/0017.md', adr), scope), 0, 'the same text in a worktree');
    const rows = (await e.list({ filter: { repo: scope.repo }, limit: 10 })).results;
    assert.deepEqual(
      rows.map((r) => [r.metadata?.doc, r.content]),
      [['docs/adr/0017.md', `Read: docs/adr/0017.md\nText: ${adr.replace('\n', '\n')}`]],
    );
  });

  it('keeps a project document an Edit or MultiEdit changed as it stands after the change, from the file Claude Code’s result carries', async () => {
    const before = '# App\n\n## Deployment\n\n`wrangler deploy` (needs Wrangler authentication).\n\n## Notes\n\nThis appears to be a migration in progress.\n';
    const edit = { file_path: '/home/user/app/CLAUDE.md', old_string: 'This appears to be a migration in progress.', new_string: 'The site is fully functional.' };
    const entries = (result: Record<string, unknown>, tool = 'Edit'): RawEntry[] => [
      { type: 'user', uuid: 'u1', parentUuid: null, message: { role: 'user', content: 'fix the notes in @CLAUDE.md' } },
      { type: 'assistant', uuid: 'a1', parentUuid: 'u1', message: { id: 'm1', role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: tool, input: edit }] } },
      { type: 'user', uuid: 'r1', parentUuid: 'a1', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'The file /home/user/app/CLAUDE.md has been updated successfully.' }] }, toolUseResult: result },
    ];
    const result = { filePath: edit.file_path, oldString: edit.old_string, newString: edit.new_string, originalFile: before, replaceAll: false };
    const docs = documentDrafts(toTurns(entries(result)));
    assert.deepEqual(
      docs.map((d) => [d.verb, d.path]),
      [
        ['Edited', '/home/user/app/CLAUDE.md'],
        ['Read', '/home/user/app/CLAUDE.md'],
      ],
    );
    assert.equal(docs[1]!.text, before.replace(edit.old_string, edit.new_string));
    // No file in the result, a result that does not hold the text replaced, or code: nothing more.
    for (const r of [{ ...result, originalFile: null }, { ...result, originalFile: '# App\n' }]) assert.deepEqual(documentDrafts(toTurns(entries(r))).map((d) => d.verb), ['Edited']);
    const code = { ...result, filePath: '/home/user/app/src/main.ts', originalFile: `const x = 1; // ${edit.old_string}` };
    assert.deepEqual(documentDrafts(toTurns(entries(code))).map((d) => d.verb), ['Edited']);
    // A MultiEdit: its edits applied in order to the file before them.
    const edits = [
      { old_string: 'This appears to be a migration in progress.', new_string: 'The site is fully functional.' },
      { old_string: '## Notes', new_string: '## Status', replace_all: true },
    ];
    const multi = { filePath: edit.file_path, edits, originalFileContents: before };
    const read = (r: Record<string, unknown>) => documentDrafts(toTurns(entries(r, 'MultiEdit'))).find((d) => d.verb === 'Read');
    assert.equal(read(multi)?.text, before.replace(edits[0]!.old_string, edits[0]!.new_string).replace('## Notes', '## Status'));
    assert.equal(read({ ...multi, edits: [...edits, { old_string: 'not in the file', new_string: 'x' }] }), undefined, 'an edit whose text the file does not hold: no document');
  });

  it('keeps a file the user @-mentioned as a document read; not the instruction files Claude Code loads into every session', async () => {
    const e = await engine();
    const entries: RawEntry[] = [
      { type: 'user', uuid: 'u1', parentUuid: null, message: { role: 'user', content: 'add a dark mode toggle, see @docs/theme.md' } },
      {
        type: 'attachment',
        uuid: 'x1',
        parentUuid: 'u1',
        attachment: {
          type: 'instructions',
          files: [
            { path: '/home/user/.claude/CLAUDE.md', type: 'User', content: 'I review every commit myself.' },
            { path: '/home/user/app/AGENTS.md', type: 'Project', content: 'TypeScript: prefer `type` over `interface`; no console.log in apps/obsidian, use `new Notice()`.' },
          ],
        },
      },
      { type: 'attachment', uuid: 'x2', parentUuid: 'x1', attachment: { type: 'file', filename: '/home/user/app/docs/theme.md', content: { type: 'text', file: { filePath: '/home/user/app/docs/theme.md', content: 'Colours come from CSS variables in src/theme.css.' } } } },
      { type: 'assistant', uuid: 'a1', parentUuid: 'x2', message: { id: 'm1', role: 'assistant', content: [{ type: 'text', text: 'Added the toggle.' }] } },
    ];
    await recordDocuments(e, toTurns(entries), scope);
    const docs = (await e.list({ filter: { repo: scope.repo, category: 'note' }, limit: 10 })).results.map((r) => r.content.split('\n')[0]).sort();
    assert.deepEqual(docs, ['Read: docs/theme.md'], 'a later session has the instruction files without us');
    const hit = await e.search({ query: 'where do the theme colours come from', user_id: 'u', filter: { repo: scope.repo }, top_k: 3 });
    assert.match(hit.results[0]!.row.content, /CSS variables in src\/theme\.css/);
    await e.close();
  });

  it('keeps a CI workflow read, and search answers what CI runs from it', async () => {
    const e = await engine();
    const ci = '     1→name: CI\n     2→on: [pull_request]\n     3→jobs:\n     4→  test:\n     5→    steps:\n     6→      - run: bun install\n     7→      - run: bun run lint\n     8→      - run: bun run typecheck\n     9→      - run: bun test';
    const turns = [turn('user', 'why is the PR red?', { kind: 'prompt' }), turn('tool', ci, { tool: 'Read', path: '/home/user/app/.github/workflows/ci.yml' }), turn('assistant', 'The lint step fails.')];
    assert.equal(await recordDocuments(e, turns, scope), 1);
    const hits = (await e.search({ query: 'what does CI run on a pull request', filter: { repo: scope.repo }, top_k: 3 })).results;
    assert.match(hits[0]?.row.content ?? '', /^Read: \.github\/workflows\/ci\.yml\nText: name: CI\n.*bun run typecheck/s);
  });

  it('keeps no secret of a config file it read: a compose file’s password, connection string and token are redacted', async () => {
    const e = await engine();
    const password = `Pw-${randomBytes(9).toString('base64url')}`;
    const token = `ghp_${randomBytes(27).toString('base64url').replace(/[-_]/g, 'a').slice(0, 36)}`;
    const compose = `services:\n  db:\n    environment:\n      POSTGRES_PASSWORD: ${password}\n      DATABASE_URL: postgres://app:${password}@db:5432/app\n  api:\n    environment:\n      - GITHUB_TOKEN=${token}`;
    await recordDocuments(e, [turn('user', 'why does the api not start?', { kind: 'prompt' }), turn('tool', compose, { tool: 'Read', path: '/home/user/app/docker-compose.yml' })], scope);
    const rows = (await e.list({ filter: { repo: scope.repo }, limit: 10 })).results;
    assert.equal(rows.length, 1);
    assert.match(rows[0]!.content, /^Read: docker-compose\.yml\n/);
    assert.ok(!rows[0]!.content.includes(password) && !rows[0]!.content.includes(token), rows[0]!.content);
    assert.match(rows[0]!.content, /POSTGRES_PASSWORD: \[REDACTED/);
  });

  it('never folds a follow-up into a document record', async () => {
    const e = await engine();
    await recordEpisodes(e, [turn('user', 'where do plans go?', { kind: 'prompt' }), turn('assistant', 'In docs/plans/.')], scope);
    await recordDocuments(e, [turn('tool', AGENTS, { tool: 'Read', path: '/home/user/app/AGENTS.md' })], scope);
    await recordEpisodes(e, [turn('user', 'ok commit it', { kind: 'prompt' }), turn('assistant', 'Committed.')], scope);
    const rows = (await e.list({ filter: { repo: scope.repo }, limit: 10 })).results;
    const folded = rows.find((r) => r.content.includes('Then asked: ok commit it'));
    assert.match(folded?.content ?? '', /^Asked: where do plans go\?/);
  });
});
