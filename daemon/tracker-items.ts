/**
 * Issues and pull requests the assistant read: `gh issue view 12`, `gh pr view 493 --json
 * title,body`, a tracker's MCP server (`mcp__linear-server__get_issue {"id":"ENG-1832"}`, GitHub's
 * `get_issue` / `get_pull_request`). Their description is where a project's requirements and the
 * reasons behind a change are written (what a pull request decided and why, what an issue asks
 * for, what is out of scope), often nowhere else in the session, so documents.ts keeps each as a
 * document of its own ("Read: issue #12"), replaced when it is read again with another text.
 *
 * Only a read that shows the description counts: a `gh pr view … --json statusCheckRollup` or a
 * state query is not a document, nor a description too short to say anything.
 */
import { SHELL_TOOL } from './transcript-lines.js';

/** An issue or pull request as read: its name in the project ("issue #12", "pull request #493", "issue ENG-1832") and its title and description. */
export interface TrackerItem {
  name: string;
  text: string;
}

/** Shortest title-and-description kept (a state, a URL or a one-line title says nothing lasting). */
const MIN_TEXT = 200;

/** `gh issue view …` / `gh pr view …` and its arguments, up to the end of that command. */
const GH_VIEW = /\bgh\s+(issue|pr)\s+view\b([^;&|\n]*)/;
/**
 * A tracker MCP tool that reads one issue or pull request, by the tool's own name: GitHub's
 * `get_issue` / `issue_read` / `get_pull_request` / `pull_request_read`, Linear's `get_issue`,
 * Jira's `getJiraIssue` (Atlassian's server) or `jira_get_issue`.
 */
const MCP_READ = /^mcp__.+__(?:get_?issue|issue_read|get_?jira_?issue|jira_get_issue|get_?pull_?request|pull_request_read)$/i;
/** Where an MCP read's input names the item. */
const ID_FIELDS = ['id', 'identifier', 'issueIdOrKey', 'issue_key', 'issueKey', 'issueId', 'issue_id', 'issue_number', 'issueNumber', 'pullNumber', 'pull_number', 'number'] as const;

/** The item a tool call read, when it is an issue or pull request read whose description came back; else null. */
export function trackerItem(tool: string, input: unknown, output: string): TrackerItem | null {
  const args = (input ?? {}) as Record<string, unknown>;
  if (SHELL_TOOL.test(tool)) return typeof args.command === 'string' ? ghItem(args.command, output) : null;
  if (!MCP_READ.test(tool)) return null;
  // GitHub's combined read tools take a method: only `get` reads the item itself (not its reviews, files or comments).
  if (typeof args.method === 'string' && args.method !== 'get') return null;
  const id = ID_FIELDS.map((f) => args[f]).find((v) => (typeof v === 'string' && v.trim()) || typeof v === 'number');
  if (id === undefined) return null;
  const kind = /pull/i.test(tool) ? 'pull request' : 'issue';
  return item(kind, typeof id === 'number' || /^\d+$/.test(String(id).trim()) ? `#${String(id).trim()}` : String(id).trim(), describe(output));
}

function ghItem(command: string, output: string): TrackerItem | null {
  const m = GH_VIEW.exec(command);
  if (!m) return null;
  const kind = m[1]!;
  const rest = m[2] ?? '';
  // In a browser, with its comments, or into a file: not its description in the output.
  if (/\s--web\b|\s-w\b|\s--comments\b|\s-c\b|(?:^|\s)(?:1?>|&>)/.test(rest)) return null;
  // A JSON query that does not ask for the body reads a state, checks or a branch name.
  const fields = /--json[\s=]+([\w,]+)/.exec(rest);
  if (fields && !fields[1]!.split(',').includes('body')) return null;
  const parsed = jsonObject(output);
  const n = /(?:^|\s)#?(\d+)(?=\s|$)/.exec(rest)?.[1] ?? /\/(?:pull|issues)\/(\d+)/.exec(rest)?.[1] ?? numberOf(parsed, output);
  if (!n) return null;
  return item(kind === 'pr' ? 'pull request' : 'issue', `#${n}`, describe(output, parsed));
}

function item(kind: string, id: string, text: string): TrackerItem | null {
  return text.length >= MIN_TEXT ? { name: `${kind} ${id}`, text } : null;
}

/** The item's number from its JSON or from `gh`'s plain `number:` line. */
function numberOf(parsed: Record<string, unknown> | null, output: string): string | undefined {
  const n = parsed?.number;
  if (typeof n === 'number' || (typeof n === 'string' && /^\d+$/.test(n))) return String(n);
  return /^number:\s+(\d+)$/m.exec(output)?.[1];
}

/** The JSON object a read printed (possibly between other commands' lines), or null. */
function jsonObject(output: string): Record<string, unknown> | null {
  const from = output.indexOf('{');
  const to = output.lastIndexOf('}');
  if (from < 0 || to <= from) return null;
  try {
    const v = JSON.parse(output.slice(from, to + 1)) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * Title and description of a read: from the JSON it printed (nothing when that has no description:
 * a query of its state or checks), else the output as printed (`gh`'s plain view, a `-q` template).
 */
function describe(output: string, parsed: Record<string, unknown> | null = jsonObject(output)): string {
  if (!parsed) return output.trim();
  // Jira keeps them under `fields` (its title is the summary).
  const item = parsed.fields && typeof parsed.fields === 'object' ? { ...parsed, ...(parsed.fields as Record<string, unknown>) } : parsed;
  const body = item.body ?? item.description;
  if (typeof body !== 'string') return '';
  const title = [item.title, item.summary].find((t): t is string => typeof t === 'string');
  return [title?.trim(), body.trim()].filter(Boolean).join('\n\n');
}
