/**
 * Project documents a session read or wrote: the instruction files the assistant read (AGENTS.md,
 * CLAUDE.md, CONTRIBUTING.md, README.md and the like: how the project is built, tested, committed,
 * released) and the Markdown it wrote or edited (the conventions it wrote down, a plan, a README).
 * Their text is where a project's standing facts are stated, often nowhere else in the session, so
 * each is kept as a record beside the episodes (an episode record with `doc` in its metadata: weighed,
 * shown as a snippet and aged like one), in the repository:
 *
 * - a document read is one record per file, its text as it was read (line numbers dropped); the same
 *   text read again writes nothing, a changed text replaces the record;
 * - what was written is one record per write (a Write's whole text, an Edit's new text).
 *
 * At most MAX_DOCUMENT_BLOCKS blocks of a document are kept (its start).
 */
import type { MemoryEngine } from '../engine/index.js';
import { addEpisodeRecord, blocksOf, EPISODE_META, projectPath, repoFolder, tidy, type EpisodeScope } from './episodes.js';
import type { Turn } from './transcript.js';

/** Most blocks (of 2,000 characters) kept of one document. */
export const MAX_DOCUMENT_BLOCKS = 6;

/** Files that tell an agent how to work in a project, by name. */
const INSTRUCTION_FILE =
  /(?:^|[\\/])(?:(?:AGENTS|CLAUDE|CLAUDE\.local|GEMINI|CONTRIBUTING|README|DEVELOPMENT|DEVELOPING|HACKING|CONVENTIONS)\.md|copilot-instructions\.md|[\w.-]+\.instructions\.md|\.cursorrules|\.windsurfrules)$/i;
/** Markdown documents. */
const DOCUMENT_FILE = /\.(?:md|mdx|markdown)$/i;
/** Not the project's: Claude Code's own files (transcripts, saved tool output, plans), dependencies. */
const NOT_THE_PROJECT = /[\\/]\.claude[\\/](?:projects|plans|todos|shell-snapshots)[\\/]|[\\/](?:tool-results|node_modules|vendor|\.venv|site-packages)[\\/]/i;

/** A Markdown document of the project (what the assistant writes there is kept). */
export function isProjectDocument(path: string): boolean {
  return DOCUMENT_FILE.test(path) && !NOT_THE_PROJECT.test(path);
}

/** An instruction file of the project (what the assistant reads there is kept). */
export function isInstructionFile(path: string): boolean {
  return INSTRUCTION_FILE.test(path) && !NOT_THE_PROJECT.test(path);
}

export interface DocumentDraft {
  path: string;
  verb: 'Read' | 'Wrote' | 'Edited';
  text: string;
}

/** A Read result without its line numbers ("12\t…" or "    12→…"). */
export function withoutLineNumbers(text: string): string {
  return text
    .split('\n')
    .map((l) => l.replace(/^\s*\d+(?:\t|→)/, ''))
    .join('\n');
}

/** The documents of flushed turns: instruction files read, Markdown written or edited. */
export function documentDrafts(turns: readonly Turn[]): DocumentDraft[] {
  const out: DocumentDraft[] = [];
  for (const t of turns) {
    if (t.role === 'tool' && t.tool === 'Read' && t.ok !== false && t.path && isInstructionFile(t.path)) {
      const text = withoutLineNumbers(t.text).trim();
      if (text) out.push({ path: t.path, verb: 'Read', text });
    } else if (t.role === 'assistant') {
      for (const w of t.writes ?? []) if (w.text.trim()) out.push({ path: w.path, verb: w.edit ? 'Edited' : 'Wrote', text: w.text.trim() });
    }
  }
  return out;
}

/**
 * A document as the blocks of one record, each headed by what was done to which file (from inside
 * the repository's folder `root` when its path passes through it, else its last three segments).
 */
export function documentBlocks(d: DocumentDraft, root?: string): string[] {
  const name = projectPath(d.path, root, 3);
  return blocksOf([`${d.verb}: ${name}`], [{ label: 'Text', text: tidy(d.text) }], `${d.verb} (continued): ${name}`).slice(0, MAX_DOCUMENT_BLOCKS);
}

/**
 * Store the documents of flushed turns (see the file comment). Returns blocks written. A document
 * record is an episode record of its own (never folded into, never a follow-up's target).
 */
export async function recordDocuments(engine: MemoryEngine, turns: readonly Turn[], scope: EpisodeScope): Promise<number> {
  let written = 0;
  for (const d of documentDrafts(turns)) {
    const blocks = documentBlocks(d, repoFolder(scope.repo));
    const filter = { repo: scope.repo, category: 'note' as const, metadata: { ...EPISODE_META, doc: d.path, verb: d.verb } };
    const existing = (await engine.list({ filter, limit: 200 })).results;
    if (existing.some((r) => r.content === blocks[0])) continue;
    // A document read again with another text: what it says now replaces what it said.
    if (d.verb === 'Read') for (const r of existing) await engine.delete(r.memory_id);
    const rows = await addEpisodeRecord(engine, scope, blocks, { doc: d.path, verb: d.verb });
    written += rows.length;
  }
  return written;
}
