/**
 * Project documents a session read or wrote: the project's Markdown the assistant read (AGENTS.md,
 * CLAUDE.md, CONTRIBUTING.md, README.md, design notes, a status file), the files that say how it is
 * built, tested, linted and released (CI workflows, package.json, Makefile, Cargo.toml …), and the
 * Markdown it wrote or edited (the conventions it wrote down, a plan, a README).
 * Their text is where a project's standing facts are stated, often nowhere else in the session, so
 * each is kept as a record beside the episodes (an episode record with `doc` in its metadata: weighed,
 * shown as a snippet and aged like one), in the repository:
 *
 * - a document read is one record per file of the repository (by its path there, so the same file
 *   read in a worktree is the same document), its text as it was read (line numbers dropped); the
 *   same text read again writes nothing, a changed text replaces the record; a shell command that
 *   only prints the file (`cat package.json`, `sed -n '1,80p' README.md`: `printedFile`) reads it too;
 * - an issue or pull request the assistant read with its description (`gh issue view 12`, a tracker's
 *   MCP `get_issue`; tracker-items.ts) is one record per item ("Read: pull request #493"), replaced
 *   when it is read again with another text: what a change decided and why, what an issue asks for;
 * - a file of those an Edit or MultiEdit changed is kept as that file read, as it stands after the
 *   change (Claude Code's result carries the whole file before it): a CLAUDE.md @-mentioned in a prompt and
 *   then edited is in the session nowhere else;
 * - what was written is one record per write (a Write's whole text, an Edit's new text);
 * - the instructions of a project's slash command the user ran (a custom command's, a skill's: the
 *   expansion Claude Code sends in its place; which ones, `askingCommands` in transcript-lines.ts)
 *   are one record per command ("Command: /start"), replaced when they change: how the project does
 *   a recurring task is often written down only there, and a later session does not have it unless
 *   that command is run again;
 * - Claude Code's compaction summary is one record per session ("Summary: the conversation before
 *   compaction, session 1a2b3c4d"), its recap sections only (`summaryRecap`), replaced by the
 *   session's next summary (which retells the earlier one): what the compacted conversation
 *   established, in one place, when its turns were captured elsewhere or not at all (a session
 *   resumed after compaction, capture paused or installed later).
 *
 * A file of the user's own Claude Code folder is no project document (`isUsersOwn`).
 * At most MAX_DOCUMENT_BLOCKS blocks of a document are kept (its start).
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { summaryRecap, type MemoryEngine, type VersionRow } from '../engine/index.js';
import { EPISODE_META } from './episode-rows.js';
import { addEpisodeRecord, blocksOf, projectPath, repoFolder, tidy, type EpisodeScope } from './episodes.js';
import { COMMAND_TOOL, SHELL_TOOL } from './transcript-lines.js';
import type { Turn } from './transcript.js';

/** Most blocks (of 2,000 characters) kept of one document. */
export const MAX_DOCUMENT_BLOCKS = 6;

/**
 * Files besides Markdown that say how to work in a project, by name: agent rules and the agent's
 * project settings (Claude Code's `.claude/settings.json`: its hooks and the commands allowed without
 * asking; `.mcp.json`), CI workflows, manifests and task runners, build, lint, test and release configs,
 * deployment manifests, in the ecosystems' usual names (how it is built, tested, linted, released,
 * deployed; "what does CI run" is answered there and often nowhere else).
 */
const PROJECT_FILE =
  /(?:^|[\\/])(?:\.cursorrules|\.windsurfrules|\.gitlab-ci\.ya?ml|\.travis\.ya?ml|azure-pipelines\.ya?ml|bitbucket-pipelines\.ya?ml|Jenkinsfile|package\.json|deno\.jsonc?|composer\.json|Makefile|GNUmakefile|justfile|Taskfile\.ya?ml|\.?mise\.toml|\.tool-versions|Cargo\.toml|pyproject\.toml|\.?ruff\.toml|(?:build|settings)\.gradle(?:\.kts)?|gradle\.properties|pom\.xml|setup\.cfg|tox\.ini|noxfile\.py|go\.mod|\.goreleaser\.ya?ml|(?:docker-)?compose[\w.-]*\.ya?ml|Dockerfile|Procfile|fly\.toml|wrangler\.(?:toml|jsonc?)|vercel\.json|netlify\.toml|\.pre-commit-config\.ya?ml|lefthook\.ya?ml|turbo\.json|\.golangci\.ya?ml|biome\.jsonc?|[\w.-]+\.neon(?:\.dist)?|phpunit\.xml(?:\.dist)?|\.markdownlint[\w.-]*|\.mcp\.json)$|[\\/]\.(?:github[\\/]workflows|circleci)[\\/][^\\/]+\.ya?ml$|[\\/]\.claude[\\/]settings\.json$/i;
/**
 * A configuration file by its kind (JSON, YAML, TOML, INI, Nix, a Prisma schema) or name (a runtime's
 * dotfile: `.replit`, `.nvmrc`, `.python-version`, `.env.example`): kept when read only while small and
 * at the top of the session's folder (`isTopConfig`), where a project keeps its own (a workspace's
 * `pnpm-workspace.yaml`, a plugin marketplace's `marketplace.json`, `tsconfig.json`); deeper, such
 * files are code's data.
 */
const CONFIG_FILE = /(?:\.(?:jsonc?|json5|ya?ml|toml|ini|cfg|conf|nix|prisma)|(?:^|[\\/])\.(?:replit|nvmrc|node-version|python-version|ruby-version|env\.(?:example|sample|template|dist)))$/i;
/** Not the project's configuration: lock files, build caches, a user's local settings. */
const NOT_CONFIG = /(?:-lock\.json|\.lock|-lock\.ya?ml|[\\/.]settings\.local\.json|\.tsbuildinfo)$/i;
/** Longest configuration file kept (characters): a longer one is data. */
export const MAX_CONFIG_CHARS = 8000;

/**
 * A small configuration file at the top of the folder the session worked in (`dir`, the transcript's
 * cwd), or in a dot folder there (`.claude-plugin/marketplace.json`, `.devcontainer/devcontainer.json`);
 * a relative path counts from `dir`.
 */
export function isTopConfig(path: string, text: string, dir: string | null | undefined): boolean {
  if (!CONFIG_FILE.test(path) || NOT_CONFIG.test(path) || NOT_THE_PROJECT.test(path) || text.length > MAX_CONFIG_CHARS) return false;
  const parts = path.replace(/^\.[\\/]/, '').split(/[\\/]+/);
  let rest: string[];
  if (!/^(?:[\\/]|[A-Za-z]:|~)/.test(path)) rest = parts;
  else {
    const top = dir?.split(/[\\/]+/).filter(Boolean);
    const own = parts.filter(Boolean);
    if (!top?.length || own.length <= top.length || top.some((p, i) => p.toLowerCase() !== own[i]!.toLowerCase())) return false;
    rest = own.slice(top.length);
  }
  return rest.length === 1 || (rest.length === 2 && rest[0]!.startsWith('.'));
}

/** Markdown documents. */
const DOCUMENT_FILE = /\.(?:md|mdx|markdown)$/i;
/** Not the project's: Claude Code's own files (transcripts, saved tool output, plans, installed plugins), dependencies. */
const NOT_THE_PROJECT = /[\\/]\.claude[\\/](?:projects|plans|todos|shell-snapshots|plugins)[\\/]|[\\/](?:tool-results|node_modules|vendor|\.venv|site-packages)[\\/]/i;

/** The user's own Claude Code folder, `~/.claude/` (macOS, Linux, Windows and root home folders), and what follows it. */
const USER_CLAUDE_HOME = /^(?:~|\/root|(?:[A-Za-z]:)?[\\/](?:Users|home)[\\/][^\\/]+)[\\/]\.claude[\\/](.*)$/is;

/**
 * Whether a file is the user's own, not the project's: a file of their Claude Code folder (their
 * CLAUDE.md, settings, skills, agents, commands, notes), unless a folder or file name there past the
 * first names the project (a skill the repository is: `skills/imessage-mail/SKILL.md` for the
 * repository imessage-mail; a note kept per project: `handoffs/-Users-ann-dev-neuvector-mcp.md`).
 * Claude Code reads the user's files into every session of every project itself, and a project's
 * record is shared with the project's team.
 */
export function isUsersOwn(path: string, root: string | undefined): boolean {
  const home = join(homedir(), '.claude');
  const rest = USER_CLAUDE_HOME.exec(path)?.[1] ?? (path.startsWith(`${home}/`) || path.startsWith(`${home}\\`) ? path.slice(home.length + 1) : null);
  if (rest === null) return false;
  if (!root) return true;
  const name = root.toLowerCase();
  return !rest
    .split(/[\\/]+/)
    .slice(1)
    .some((segment) => {
      const s = segment.toLowerCase().replace(/\.[a-z]+$/, '');
      return s === name || s.endsWith(`-${name}`);
    });
}

/** A Markdown document of the project (what the assistant writes there is kept). */
export function isProjectDocument(path: string): boolean {
  return DOCUMENT_FILE.test(path) && !NOT_THE_PROJECT.test(path);
}

/** A file of the project whose text, when the assistant reads it, is kept: its Markdown and PROJECT_FILE. */
export function isKeptWhenRead(path: string): boolean {
  return (DOCUMENT_FILE.test(path) || PROJECT_FILE.test(path)) && !NOT_THE_PROJECT.test(path);
}

export interface DocumentDraft {
  path: string;
  verb: 'Read' | 'Wrote' | 'Edited' | 'Command' | 'Summary';
  text: string;
}

/** A Read result without its line numbers ("12\t…" or "    12→…"). */
export function withoutLineNumbers(text: string): string {
  return text
    .split('\n')
    .map((l) => l.replace(/^\s*\d+(?:\t|→)/, ''))
    .join('\n');
}

/** Source code, by its extension: its text is never kept, its header comment is (`codeHeader`). */
const CODE_FILE = /\.(?:[cm]?[jt]sx?|py|pyi|sh|bash|zsh|fish|go|rs|rb|php|java|kts?|swift|c|h|cc|cpp|cxx|hpp|hh|cu|cuh|cs|lua|exs?|scala|dart|sql|jl|ps1|pl|pm|zig)$/i;
/** A line that opens a source file without saying anything: a shebang, an encoding or a preprocessor line, `<?php`, a `'use strict'`. */
const PREAMBLE = /^(?:#!|#\s*-\*-|#\s*(?:vim?|encoding|frozen_string_literal)\b|<\?php\b|["']use (?:strict|client|server)["'];?$)/i;
/** A comment line (its marker taken off by `commentText`); `#include`, `#define` and the like are code. */
const COMMENT_LINE = /^(?:#(?!(?:include|define|if|ifdef|ifndef|endif|else|elif|pragma|import|undef|error|region|endregion)\b|\[|!)|\/\/|\/\*|\*|--(?!-))/;
/** Licence and copyright lines: the same in every file of a project, and nothing about this one. */
const LICENCE_LINE = /\b(?:copyright|licen[cs]ed?|spdx|all rights reserved|governed by|warrant(?:y|ies)|you may not use this file|www\.apache\.org|without limitation)\b|©/i;
/** Fewest characters a header says for it to be kept. */
const MIN_HEADER_CHARS = 40;
/** Most characters of a header kept: one record block. */
const MAX_HEADER_CHARS = 2000;

/** A comment line without its marker ("// ", "# ", " * ", "/** "). */
function commentText(line: string): string {
  return line
    .trim()
    .replace(/^(?:\/\*+|\*+\/|\*+(?!\/)|\/\/+!?|#+|--)\s?/, '')
    .replace(/\s*\*+\/$/, '')
    .trimEnd();
}

/**
 * What a source file says of itself in the comment or docstring it opens with ("Payments Module …
 * CURRENT STATUS: Free MVP", "FROZEN CONTRACTS. Do not change without telling all four owners.", what a
 * script does and how to run it): the code's own documentation, read when the file is read from its
 * first line; licence and copyright lines left out. Null when the file opens with code, or its header
 * says too little.
 */
export function codeHeader(path: string, text: string): string | null {
  if (!CODE_FILE.test(path)) return null;
  const out: string[] = [];
  let docstring: string | null = null;
  for (const raw of text.split('\n').slice(0, 80)) {
    const line = raw.trim();
    if (docstring) {
      const end = line.indexOf(docstring);
      out.push(end >= 0 ? line.slice(0, end) : line);
      if (end >= 0) docstring = null;
      continue;
    }
    if (!line) {
      if (out.length > 0) out.push('');
      continue;
    }
    if (out.length === 0 && PREAMBLE.test(line)) continue;
    const opens = /^[rRuU]?("""|''')/.exec(line);
    if (opens) {
      const rest = line.slice(opens[0].length);
      const end = rest.indexOf(opens[1]!);
      out.push(end >= 0 ? rest.slice(0, end) : rest);
      if (end < 0) docstring = opens[1]!;
      else break;
      continue;
    }
    if (!COMMENT_LINE.test(line)) break;
    out.push(commentText(line));
  }
  const said = out
    .filter((l) => !LICENCE_LINE.test(l))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  if (said.replace(/[^\p{L}\p{N}]+/gu, '').length < MIN_HEADER_CHARS / 2 || said.length < MIN_HEADER_CHARS) return null;
  return said.length > MAX_HEADER_CHARS ? said.slice(0, MAX_HEADER_CHARS) : said;
}

/** Whether a tool turn shows a file from its first line: a Read from line 1, or `cat`, `head`, `bat`. */
function fromTheTop(t: Turn): boolean {
  if (t.tool === 'Read') return !/^\s*\d+(?:\t|→)/.test(t.text) || /^\s*1(?:\t|→)/.test(t.text);
  return /^\$ (?:cat|head|bat)\b/.test(t.text);
}

/** What a compaction summary's record is called (with its session). */
const SUMMARY_NAME = 'the conversation before compaction';

/**
 * The documents of flushed turns: the project's files read (isKeptWhenRead, and small configuration
 * files at the top of the folder the session worked in: isTopConfig), also when one command printed several;
 * issues and pull requests read, slash commands' instructions, compaction summaries, Markdown written or edited.
 */
export function documentDrafts(turns: readonly Turn[]): DocumentDraft[] {
  const out: DocumentDraft[] = [];
  const read = (path: string, raw: string, dir: string | undefined, top: boolean): void => {
    const text = withoutLineNumbers(raw).trim();
    if (text && (isKeptWhenRead(path) || isTopConfig(path, text, dir))) out.push({ path, verb: 'Read', text });
    else if (text && top && !NOT_THE_PROJECT.test(path)) {
      const header = codeHeader(path, text);
      if (header) out.push({ path, verb: 'Read', text: header });
    }
  };
  for (const t of turns) {
    if (t.role === 'tool' && (t.tool === 'Read' || SHELL_TOOL.test(t.tool ?? '')) && t.ok !== false && t.path) {
      // A shell command's output is headed by the command ("$ cat package.json").
      read(t.path, t.tool === 'Read' ? t.text : t.text.replace(/^\$ [^\n]*\n?/, ''), t.cwd, fromTheTop(t));
    } else if (t.role === 'tool' && t.prints && t.ok !== false) {
      for (const p of t.prints) read(p.path, p.text, t.cwd, true);
    } else if (t.role === 'tool' && t.item && t.ok !== false) {
      out.push({ path: t.item.name, verb: 'Read', text: t.item.text });
    } else if (t.role === 'tool' && t.tool === COMMAND_TOOL && t.path && t.text.trim()) {
      out.push({ path: t.path, verb: 'Command', text: t.text.trim() });
    } else if (t.role === 'assistant' && t.kind === 'summary') {
      const text = summaryRecap(t.text);
      if (text) out.push({ path: SUMMARY_NAME, verb: 'Summary', text });
    } else if (t.role === 'assistant') {
      for (const w of t.writes ?? []) if (w.text.trim()) out.push({ path: w.path, verb: w.edit ? 'Edited' : 'Wrote', text: w.text.trim() });
    }
  }
  return out;
}

/** What a document is called in its repository: a file's path there, an issue's or pull request's name, a command's name, a summary's session. */
function documentName(d: DocumentDraft, root?: string, session?: string): string {
  if (d.verb === 'Summary') return session ? `${d.path}, session ${session.slice(0, 8)}` : d.path;
  return d.verb === 'Command' ? d.path : projectPath(d.path, root, 3);
}

/**
 * A document as the blocks of one record, each headed by what was done to which file (from inside
 * the repository's folder `root` when its path passes through it, else its last three segments).
 */
export function documentBlocks(d: DocumentDraft, root?: string, session?: string): string[] {
  const name = documentName(d, root, session);
  return blocksOf([`${d.verb}: ${name}`], [{ label: 'Text', text: tidy(d.text) }], `${d.verb} (continued): ${name}`).slice(0, MAX_DOCUMENT_BLOCKS);
}

/**
 * Store the documents of flushed turns (see the file comment). Returns blocks written. A document
 * record is an episode record of its own (never folded into, never a follow-up's target).
 */
export async function recordDocuments(engine: MemoryEngine, turns: readonly Turn[], scope: EpisodeScope): Promise<number> {
  let written = 0;
  const root = repoFolder(scope.repo);
  for (const d of documentDrafts(turns)) {
    if (d.verb !== 'Summary' && d.verb !== 'Command' && isUsersOwn(d.path, root)) continue;
    const blocks = documentBlocks(d, root, scope.run_id);
    // A document is keyed by its name in the repository: the same file read in another checkout or a
    // worktree is the same document. (A file's records written before were keyed by its absolute path;
    // a summary has only ever been keyed by its session.)
    const name = documentName(d, root, scope.run_id);
    const existing: VersionRow[] = [];
    for (const doc of new Set(d.verb === 'Summary' ? [name] : [name, d.path])) {
      const filter = { repo: scope.repo, category: 'note' as const, metadata: { ...EPISODE_META, doc, verb: d.verb } };
      existing.push(...(await engine.list({ filter, limit: 200 })).results);
    }
    if (existing.some((r) => r.content === blocks[0])) continue;
    // A document read again (a command run again, a session compacted again) with another text: what it says now replaces what it said.
    if (d.verb !== 'Wrote' && d.verb !== 'Edited') for (const r of existing) await engine.delete(r.memory_id);
    const rows = await addEpisodeRecord(engine, scope, blocks, { doc: name, verb: d.verb });
    written += rows.length;
  }
  return written;
}
