import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { episodeDrafts, episodeRecords } from '../../daemon/episodes.js';
import { shellSteps } from '../../daemon/shell-steps.js';
import type { Turn } from '../../daemon/transcript.js';

// Command shapes as Claude Code's Bash tool ran them in the real transcript fixtures.
describe('shellSteps', () => {
  it('keeps the steps that build, test or run, without cd, redirections, trimming pipes or steps that look around', () => {
    assert.deepEqual(shellSteps('cd ~/Code/openwisprmod && swift build -c release 2>&1 | tail -20').steps, ['swift build -c release']);
    assert.deepEqual(shellSteps('cd "/Users/user/Library/Mobile Documents/dev/mcp" && source .venv/bin/activate 2>/dev/null; make verify 2>&1 | tail -30').steps, ['source .venv/bin/activate', 'make verify']);
    assert.deepEqual(shellSteps(`set -e\neval "$(./bin/mise env -s bash)" >/dev/null 2>&1; export ASC_DEFAULT_OUTPUT=json\n./Scripts/asc.sh versions list --app 6799644194 --limit 8`).steps, ['eval "$(./bin/mise env -s bash)"', 'export ASC_DEFAULT_OUTPUT=json', './Scripts/asc.sh versions list --app 6799644194 --limit 8']);
    assert.deepEqual(shellSteps('echo "=== ruff ===" && python -m ruff check src/ && echo "=== tests ===" && uv run python -m pytest tests/ -q').steps, ['python -m ruff check src/', 'uv run python -m pytest tests/ -q']);
    assert.deepEqual(shellSteps('ls -la src && git status && grep -rn TODO src | head').steps, []);
    assert.deepEqual(shellSteps('git worktree list; go mod graph; go list -m -versions golang.org/x/net; node --version; npm ls vite; go mod tidy').steps, ['go mod tidy']);
    assert.deepEqual(shellSteps('pnpm -C apps/web run typecheck 2>&1 | tail -10 && echo "---" && pnpm -C apps/web run test').steps, ['pnpm -C apps/web run typecheck', 'pnpm -C apps/web run test']);
    // Quoted separators are no step boundaries.
    assert.deepEqual(shellSteps(`node -e "console.log(1); process.exit(0)" && npm run build`).steps, ['node -e "console.log(1); process.exit(0)"', 'npm run build']);
  });

  it('takes the message of a commit from a heredoc, -F - or -m, without the lines Claude Code adds, and never as a step', () => {
    const heredoc = `git add .github/workflows/ci.yml && git commit -m "$(cat <<'EOF'
Fix Vercel project not found error

Remove VERCEL_ORG_ID and VERCEL_PROJECT_ID environment variables: the token's scope picks the project.

🤖 Generated with [Claude Code](https://claude.ai/code)

Co-Authored-By: Claude <noreply@anthropic.com>
EOF
)"`;
    assert.deepEqual(shellSteps(heredoc), {
      steps: [],
      commits: ["Fix Vercel project not found error\n\nRemove VERCEL_ORG_ID and VERCEL_PROJECT_ID environment variables: the token's scope picks the project."],
      bookkeeping: ['git add .github/workflows/ci.yml'],
    });
    const fileDash = `cd "C:/Users/user/dev/numwordify" && git add -A && git commit -q -F - <<'EOF' && git log --oneline -1
fix!: repair the culture lookup

WordifyOptions.DefaultCurrency now sets the currency.
EOF`;
    assert.deepEqual(shellSteps(fileDash).commits, ['fix!: repair the culture lookup\n\nWordifyOptions.DefaultCurrency now sets the currency.']);
    assert.deepEqual(shellSteps('git commit -m "feat: add --send flag" -m "submit.sh stays a dry run by default"').commits, ['feat: add --send flag\nsubmit.sh stays a dry run by default']);
    assert.deepEqual(shellSteps(`jj describe -m 'feat: rebase revset input' && jj bookmark set main -r @ && jj git push -b main`), { steps: [], commits: ['feat: rebase revset input'], bookkeeping: ['jj bookmark set main -r @', 'jj git push -b main'] });
  });

  it('puts the commit message in the episode, and what a follow-up ran in its line', () => {
    const t = (role: Turn['role'], text: string, extra: Partial<Turn> = {}): Turn => ({ uuid: null, role, text, ...extra });
    const commit = `git commit -q -m "$(cat <<'EOF'\nfix(ci): stage the cask before diffing so an untracked file counts\nEOF\n)"`;
    const drafts = episodeDrafts([
      t('user', 'why did publish-cask-head succeed but no cask show up', { kind: 'prompt' }),
      t('tool', '', { tool: 'Bash', ok: true, command: commit }),
      t('assistant', 'Fixed and committed.'),
      t('user', 'go for it', { kind: 'prompt' }),
      t('tool', '$ npm run dev\nready on :8787', { tool: 'Bash', ok: true, command: 'npm run dev 2>&1 &' }),
      t('assistant', 'Dev server is running at http://localhost:8787'),
    ]);
    assert.match(episodeRecords(drafts[0]!)[0]![0]!, /\nCommitted: fix\(ci\): stage the cask before diffing so an untracked file counts$/);
    assert.deepEqual(drafts[1]?.commands, [{ command: 'npm run dev &', ok: true }]);
    // A commit a hook refused left nothing behind.
    const refused = episodeDrafts([t('user', 'commit it', { kind: 'prompt' }), t('tool', 'hook failed', { tool: 'Bash', ok: false, command: 'git commit -m "wip"' }), t('assistant', 'The hook refused it.')]);
    assert.equal(refused[0]?.commits, undefined);
  });

  it('records version-control steps only as the way out of the same kind of step that failed just before', () => {
    const t = (role: Turn['role'], text: string, extra: Partial<Turn> = {}): Turn => ({ uuid: null, role, text, ...extra });
    // Real transcript (blind-38, oravini-86b6c7ea): a push rejected, a rebase refused with unstaged changes, then the way through.
    const drafts = episodeDrafts([
      t('user', 'push it', { kind: 'prompt' }),
      t('tool', '', { tool: 'Bash', ok: true, command: 'git add client/src/pages/SelectPlan.tsx && git status' }),
      t('tool', 'error: cannot pull with rebase: You have unstaged changes.', { tool: 'Bash', ok: false, command: 'git pull --rebase origin main 2>&1 && git push origin main 2>&1' }),
      t('tool', 'Successfully rebased', { tool: 'Bash', ok: true, command: 'git stash && git pull --rebase origin main 2>&1 && git stash pop 2>&1 && git push origin main 2>&1' }),
      t('assistant', 'Pushed successfully.'),
    ]);
    assert.deepEqual(drafts[0]?.commands, [
      { command: 'git pull --rebase origin main && git push origin main', ok: false },
      { command: 'git stash && git pull --rebase origin main && git stash pop && git push origin main', ok: true },
    ]);
    assert.deepEqual(shellSteps('git stash && git pull --rebase origin main && git log -1').bookkeeping, ['git stash', 'git pull --rebase origin main']);
    // Without a failure before it, a push is bookkeeping, not a step.
    const plain = episodeDrafts([t('user', 'push it', { kind: 'prompt' }), t('tool', '', { tool: 'Bash', ok: true, command: 'git push origin main' }), t('assistant', 'Pushed.')]);
    assert.equal(plain[0]?.commands, undefined);
  });
});
