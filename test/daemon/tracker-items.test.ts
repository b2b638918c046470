/**
 * Issues and pull requests the assistant read (daemon/tracker-items.ts): a `gh issue view` /
 * `gh pr view` that printed the description, or a tracker MCP server's get-issue, is kept as a
 * document of the repository; a read of its state, checks or comments, or one sent to a file or a
 * browser, is not.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { documentDrafts, recordDocuments } from '../../daemon/documents.js';
import { trackerItem } from '../../daemon/tracker-items.js';
import type { RawEntry } from '../../daemon/transcript-lines.js';
import { toTurns } from '../../daemon/transcript.js';
import { MemoryEngine } from '../../engine/index.js';
import { InMemoryStore } from '../../engine/store/memory-store.js';

const scope = { user_id: 'u', run_id: 's1', repo: 'github.com/acme/stream', dir: null };

const BODY = [
  'Closes #492.',
  '',
  'Adds `write_mode: overwrite` (full refresh): each run replaces the destination, swapped in only after a fully successful run.',
  '',
  '| Sink | Atomic swap |',
  '|---|---|',
  '| postgres | TRUNCATE + INSERT…SELECT in one transaction |',
  '| mysql | CREATE TABLE … LIKE + atomic RENAME TABLE |',
  '',
  'Elasticsearch is excluded: no atomic index replace exists without an alias-based redesign.',
].join('\n');
const PR_JSON = JSON.stringify({ body: BODY, headRefName: 'feat/overwrite', state: 'OPEN', title: 'feat(sinks): add write_mode: overwrite' });

/** A session whose assistant ran one tool and got `output` back. */
function session(name: string, input: Record<string, unknown>, output: string, isError = false): RawEntry[] {
  return [
    { type: 'user', uuid: 'u1', parentUuid: null, message: { role: 'user', content: 'ci is failing on the overwrite PR, can you fix it' } },
    { type: 'assistant', uuid: 'a1', parentUuid: 'u1', message: { id: 'm1', role: 'assistant', content: [{ type: 'tool_use', id: 't1', name, input }] } },
    { type: 'user', uuid: 'r1', parentUuid: 'a1', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: output, is_error: isError }] } },
    { type: 'assistant', uuid: 'a2', parentUuid: 'r1', message: { id: 'm2', role: 'assistant', content: [{ type: 'text', text: 'The coverage gate fails; fixed.' }] } },
  ];
}

async function engine(): Promise<MemoryEngine> {
  const e = new MemoryEngine({ store: new InMemoryStore(), embedder: null, background: false });
  await e.open();
  return e;
}

describe('issues and pull requests read', () => {
  it('reads the description a gh view or a tracker MCP server printed, by the item’s number or id', () => {
    const bash = (command: string, output: string) => trackerItem('Bash', { command }, output);
    assert.deepEqual(bash('gh auth switch --user me 2>&1; gh pr view 493 --json title,state,headRefName,body 2>&1 | head -60', `✓ Switched active account\n${PR_JSON}`), {
      name: 'pull request #493',
      text: `feat(sinks): add write_mode: overwrite\n\n${BODY}`,
    });
    const plain = `title:\tCursor plugin install does not load on WSL\nstate:\tOPEN\nauthor:\tsomeone\nnumber:\t3\n--\n## Summary\n\n${BODY}`;
    assert.equal(bash('gh issue view 3 --repo acme/skills', plain)?.name, 'issue #3');
    assert.equal(bash('gh issue view --repo acme/skills https://github.com/acme/skills/issues/3', plain)?.name, 'issue #3', 'by its URL');
    assert.equal(bash('gh pr view --json number,title,body 2>/dev/null', JSON.stringify({ number: 37, title: 'fix: installer', body: BODY }))?.name, 'pull request #37', 'the current branch’s, by the number it printed');
    assert.equal(bash('gh issue view 271 --json title,body -q \'.title + "\\n" + .body\'', `[EPIC] Honest reporting\n${BODY}`)?.name, 'issue #271', 'a template’s output as printed');
    assert.deepEqual(trackerItem('mcp__linear-server__get_issue', { id: 'ENG-2228' }, JSON.stringify({ id: 'ENG-2228', title: 'Link support for text shapes', description: BODY })), {
      name: 'issue ENG-2228',
      text: `Link support for text shapes\n\n${BODY}`,
    });
    assert.equal(trackerItem('mcp__github__get_pull_request', { owner: 'acme', repo: 'stream', pullNumber: 30 }, JSON.stringify({ title: 'Default voice', body: BODY }))?.name, 'pull request #30');
    assert.deepEqual(trackerItem('mcp__atlassian__getJiraIssue', { cloudId: 'c1', issueIdOrKey: 'PAY-81' }, JSON.stringify({ key: 'PAY-81', fields: { summary: 'Refunds over the limit', description: BODY } })), {
      name: 'issue PAY-81',
      text: `Refunds over the limit\n\n${BODY}`,
    });
    assert.equal(trackerItem('mcp__github__issue_read', { method: 'get', owner: 'acme', repo: 'stream', issue_number: 492 }, JSON.stringify({ title: 'Overwrite mode', body: BODY }))?.name, 'issue #492');
  });

  it('is not a document when the read shows no description: state, checks, comments, a browser, a file, too short, another command', () => {
    const bash = (command: string, output: string) => trackerItem('Bash', { command }, output);
    const checks = JSON.stringify([{ name: 'Test Rust', status: 'COMPLETED', conclusion: 'FAILURE' }]).repeat(10);
    assert.equal(bash('gh pr view 51 --json statusCheckRollup --jq \'.statusCheckRollup\'', checks), null);
    assert.equal(bash('gh pr view 221 --json title,state,body,commits --jq \'{title, state, checks}\'', JSON.stringify({ title: 'x', state: 'MERGED', checks: checks })), null, 'a projection without the body');
    assert.equal(bash('gh pr view 18 --web', BODY), null);
    assert.equal(bash('gh issue view 3 --comments', BODY), null);
    assert.equal(bash('gh issue view 1 --json body -q .body > /tmp/i1.md\ngit status', BODY), null, 'into a file: what printed is another command’s');
    assert.equal(bash('gh pr view 3 --json state,mergedAt', '{"state":"MERGED"}'), null);
    assert.equal(bash('gh pr view 2 --json number,title,body', 'none of the git remotes configured for this repository point to a known GitHub host.'), null, 'too short');
    assert.equal(bash('git log --oneline', BODY), null);
    assert.equal(trackerItem('mcp__github__pull_request_read', { method: 'get_reviews', pullNumber: 30 }, JSON.stringify({ body: BODY })), null, 'its reviews, not the item');
    assert.equal(trackerItem('mcp__linear-server__list_issues', { query: 'eslint' }, JSON.stringify({ description: BODY })), null);
    assert.equal(trackerItem('mcp__github__issue_read', { method: 'get_comments', issue_number: 492 }, JSON.stringify({ body: BODY })), null);
    assert.equal(trackerItem('mcp__atlassian__getJiraIssue', { issueIdOrKey: 'PAY-81' }, JSON.stringify({ key: 'PAY-81', fields: { summary: 'x', description: { type: 'doc', content: [] } } })), null, 'a description in a shape it cannot read');
    assert.equal(trackerItem('Read', { file_path: '/r/README.md' }, BODY), null);
  });

  it('keeps a pull request read as a document, once per text, replaced when read again changed, and search answers from it; a failed read is not kept', async () => {
    const e = await engine();
    const read = (body: string) => toTurns(session('Bash', { command: 'gh pr view 493 --json title,body' }, JSON.stringify({ title: 'feat(sinks): add write_mode: overwrite', body })));
    assert.deepEqual(
      documentDrafts(read(BODY)).map((d) => [d.verb, d.path]),
      [['Read', 'pull request #493']],
    );
    assert.deepEqual(documentDrafts(toTurns(session('Bash', { command: 'gh pr view 493 --json title,body' }, PR_JSON, true))), [], 'a failed read');
    assert.equal(await recordDocuments(e, read(BODY), scope), 1);
    assert.equal(await recordDocuments(e, read(BODY), { ...scope, run_id: 's2' }), 0, 'the same text read in another session');
    assert.equal(await recordDocuments(e, read(BODY.replace('Elasticsearch is excluded', 'Elasticsearch swaps an alias')), scope), 1);
    const docs = (await e.list({ filter: { repo: scope.repo, metadata: { doc: 'pull request #493' } }, limit: 10 })).results;
    assert.deepEqual(
      docs.map((r) => [r.content.split('\n')[0], /swaps an alias/.test(r.content)]),
      [['Read: pull request #493', true]],
      'what it says now replaces what it said',
    );
    const hits = (await e.search({ query: 'how does the mysql sink swap the data on overwrite', filter: { repo: scope.repo }, top_k: 3 })).results;
    assert.match(hits[0]?.row.content ?? '', /^Read: pull request #493\n[^]*RENAME TABLE/);
  });

  it('keeps no secret an issue’s description carried', async () => {
    const e = await engine();
    const token = `ghp_${randomBytes(27).toString('base64url').replace(/[-_]/g, 'a').slice(0, 36)}`;
    const body = `${BODY}\n\nRepro: GITHUB_TOKEN=${token} faucet run overwrite.yaml`;
    await recordDocuments(e, toTurns(session('mcp__github__get_issue', { owner: 'acme', repo: 'stream', issue_number: 492 }, JSON.stringify({ title: 'Overwrite mode', body }))), scope);
    const rows = (await e.list({ filter: { repo: scope.repo }, limit: 10 })).results;
    assert.equal(rows.length, 1);
    assert.match(rows[0]!.content, /^Read: issue #492\n/);
    assert.ok(!rows[0]!.content.includes(token), 'the token is redacted');
  });
});
