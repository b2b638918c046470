/**
 * What a shell command a turn ran is worth remembering: its steps that build, test, run or change
 * something ("swift build -c release", "make verify"), without the `cd … &&` before them, the
 * `2>&1 | tail -20` after them or the steps that only look around; and the commit messages it wrote
 * (`git commit -m …`, a heredoc after `-m "$(cat <<'EOF'` or `-F -`, `jj describe -m …`), which say
 * what was changed and why in the assistant's own words.
 */

/** The parts of one shell command worth recording (see the module's comment). */
export interface ShellSteps {
  steps: string[];
  commits: string[];
  /**
   * The version-control steps that change something (`git stash`, `git pull --rebase origin main`,
   * `git push`; not status, log or diff, not the commit itself), in order: left out of `steps`, but
   * worth recording as the way out when the same kind of command failed just before.
   */
  bookkeeping: string[];
}

/** Version-control steps that change the repository or its remote (git's and jj's), not the commit itself. */
const GIT_CHANGES = 'add|rm|mv|push|pull|fetch|checkout|switch|stash|merge|rebase|reset|restore|cherry-pick|tag';
const JJ_CHANGES = 'new|bookmark|git';

/**
 * A step that only looks around (lists, reads, searches, shows git, CI or container state), keeps
 * version-control books (git add, commit, push, checkout …; the commit's message is kept apart) or
 * only steers the shell (cd, set -e, if … fi), also behind a wrapper such as `sudo` or `time`. Setting
 * the environment up (`source .venv/bin/activate`, `eval "$(mise env)"`, `export …`) is kept: how to get
 * a working shell is worth knowing.
 */
const LOOKING_AROUND = new RegExp(
  String.raw`^(?:cd|pushd|popd|ls|ll|cat|head|tail|less|more|grep|egrep|rg|ag|find|fd|pwd|echo|printf|wc|sed|awk|tree|which|whereis|type|file|stat|du|df|sleep|true|false|env|printenv|date|whoami|uname|diff|sort|uniq|cut|jq|xxd|od|realpath|dirname|basename|test|\[\[?|set|unset|exit|clear|read|if|then|else|elif|fi|for|while|do|done|case|esac)(?:\s|$)|^(?:(?!git\b)[\w-]+\s+)?(?:git\s+(?:-C\s+\S+\s+)?(?:status|diff|log|show|branch|remote|rev-parse|ls-files|ls-tree|check-ignore|blame|describe|config --get|commit|${GIT_CHANGES})|git\s+worktree\s+list|jj\s+(?:log|st|status|diff|show|describe|commit|${JJ_CHANGES})|go\s+(?:list|version|env|mod\s+(?:graph|why))|(?:npm|pnpm|yarn)\s+(?:ls|list|view|info|outdated|why)|pip3?\s+(?:list|show|freeze)|cargo\s+(?:tree|metadata)|(?:gh|glab)\s+[\w-]+\s+(?:list|view|watch|status|diff|checks)|kubectl\s+(?:get|describe|logs)|docker\s+(?:ps|logs|images|inspect))\b`,
);

/** A version-control step that changes the repository or its remote (not one that only looks). */
const VCS_CHANGE = new RegExp(String.raw`^(?:git\s+(?:-C\s+\S+\s+)?(?:${GIT_CHANGES})|jj\s+(?:${JJ_CHANGES}))\b`);

/** Asking a tool its version ("node --version", "python3 -V"). */
const VERSION_ONLY = /^\S+\s+(?:--version|-v|-V|version)$/;
/** A pipe into a filter that only trims what is shown (`| tail -20`, `| grep -v warn`). */
const TRIM_PIPE = /\s*\|\s*(?:tail|head|grep|egrep|rg|sort|uniq|wc|less|more|cat|tee|cut|jq|sed|awk)\b.*$/s;
/** Redirections of the output that say nothing about the step. */
const REDIRECT = /\s*(?:\d?>&\d|&>\s*\/dev\/null|\d?>\s*\/dev\/null)/g;
/** A heredoc: `<<'EOF'`, `<<"EOF"`, `<<-EOF`, `<< EOF`, its body and its closing line. */
const HEREDOC = /<<-?\s*(['"]?)([A-Za-z_][\w-]*)\1([^\n]*)\n([\s\S]*?)\n[ \t]*\2[ \t]*(?=\n|$)/g;
/** A commit that takes its message from `-m`, `--message`, `-F -` or `--file=-`. */
const COMMITS = /\b(?:git\s+(?:-C\s+\S+\s+)?commit|jj\s+(?:describe|commit|desc))\b/;
/** Lines Claude Code adds to every commit it writes. */
const BOILERPLATE = /^\s*(?:🤖\s*)?Generated with \[?Claude Code\b.*$|^\s*Co-Authored-By:\s*Claude\b.*$/gim;

/** Top-level statements of `text`: split at newlines, `;`, `&&` and `||` outside quotes and `$( … )`. */
export function statements(text: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quote: '"' | "'" | null = null;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === '\\' && quote === '"') {
        cur += c + (text[i + 1] ?? '');
        i++;
        continue;
      }
      if (c === quote) quote = null;
      cur += c;
      continue;
    }
    if (c === '\\' && text[i + 1] === '\n') {
      cur += ' ';
      i++;
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '$' && text[i + 1] === '(') depth++;
    else if (c === ')' && depth > 0) depth--;
    const two = text.slice(i, i + 2);
    if (depth === 0 && (c === '\n' || c === ';' || two === '&&' || two === '||')) {
      out.push(cur);
      cur = '';
      if (two === '&&' || two === '||') i++;
      continue;
    }
    cur += c;
  }
  out.push(cur);
  return out.map((s) => s.trim()).filter(Boolean);
}

/** The message a commit statement gives inline: its `-m` / `--message` values, joined as paragraphs. */
function inlineMessage(statement: string): string {
  const parts: string[] = [];
  for (const m of statement.matchAll(/(?:^|\s)(?:-m|--message(?:=|\s))\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)')/g)) {
    const text = (m[1] ?? m[2] ?? '').replace(/\\(["\\$`])/g, '$1');
    if (text.trim() && !text.includes('$(')) parts.push(text.trim());
  }
  return parts.join('\n');
}

function cleanMessage(message: string): string {
  return message
    .replace(BOILERPLATE, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** The steps and commit messages of one shell command (see the module's comment). */
export function shellSteps(command: string): ShellSteps {
  const commits: string[] = [];
  // Heredoc bodies come out first: a commit message's lines are no steps.
  const bodies: string[] = [];
  const flat = command.replace(HEREDOC, (_all, _q: string, _tag: string, rest: string, body: string) => {
    bodies.push(body);
    return `<<HEREDOC${bodies.length - 1}${rest}`;
  });
  const steps: string[] = [];
  const bookkeeping: string[] = [];
  for (const s of statements(flat)) {
    if (COMMITS.test(s)) {
      const doc = /<<HEREDOC(\d+)/.exec(s);
      const message = doc && /(?:-m|--message|-F\s*-|--file[= ]-)/.test(s) ? bodies[Number(doc[1])]! : inlineMessage(s);
      const clean = cleanMessage(message ?? '');
      if (clean && !commits.includes(clean)) commits.push(clean);
      continue;
    }
    const step = s.replace(/<<HEREDOC\d+/g, '<<…').replace(TRIM_PIPE, '').replace(REDIRECT, '').trim();
    if (VCS_CHANGE.test(step)) bookkeeping.push(step);
    if (!step || LOOKING_AROUND.test(step.replace(/^(?:sudo|time|nohup|command)\s+/, '')) || VERSION_ONLY.test(step)) continue;
    if (!steps.includes(step)) steps.push(step);
  }
  return { steps, commits, bookkeeping };
}
