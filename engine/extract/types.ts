/**
 * What the extractor consumes and produces (DESIGN.md §5.4). An extractor turns the turns of a
 * flushed session into candidate memories; consolidation then decides what each one does to
 * the store (see consolidate.ts).
 */
import type { Category, Space } from '../types.js';

/** One turn of a coding-agent session, already redacted. */
export interface ExtractTurn {
  role: 'user' | 'assistant' | 'tool';
  text: string;
  /** Tool name for tool turns (`Bash`, `Read`…). Only shell-like tools yield facts. */
  tool?: string;
  /** Whether the tool call succeeded. */
  ok?: boolean;
  /**
   * A typed `prompt`, an `answer` to a question the assistant asked (question → answer), or the
   * `summary` Claude Code wrote when it compacted the conversation, the parent agent's `task` for
   * a subagent (a user turn whose words are not the user's), a subagent's `report` back (a tool
   * turn), a command the user ran in `shell` mode (a tool turn: the command and what it printed).
   * Absent: an ordinary message.
   */
  kind?: 'prompt' | 'answer' | 'summary' | 'task' | 'report' | 'shell';
  /** The task a `report` answers (the parent agent's words), when known. */
  task?: string;
}

export interface Candidate {
  /** One or two self-contained sentences, at most 300 characters. */
  content: string;
  category: Category;
  space: Space;
  /** 0..1; rules decide it, prototype similarity nudges it by at most ±0.1. */
  confidence: number;
  /** normalized subject key for supersede detection, e.g. "package manager", "db for sessions"; null when none */
  subject: string | null;
  role: ExtractTurn['role'];
}

export interface Extractor {
  /** Candidates in turn order. Deterministic: the same turns give the same candidates. */
  extract(turns: readonly ExtractTurn[]): Promise<Candidate[]>;
}
