/**
 * Durable facts from tool outcomes, kept conservative: a failed install that names a required
 * runtime version. Everything else a tool prints is chatter.
 *
 * Tool text is the capture format: optionally the command on a first line prefixed `$ `, then
 * its output. Only shell-like tools are read; a `Read` of a README is not an outcome.
 */
import type { Category } from '../types.js';
import type { ExtractTurn } from './types.js';

export interface ToolFact {
  content: string;
  category: Category;
  confidence: number;
}

/** Below user statements: a tool outcome is evidence, not an instruction. */
const TOOL_CONFIDENCE = 0.6;
const SHELL_TOOLS = /^(?:bash|shell|sh|zsh|terminal|exec|run|command|powershell)$/i;

const RUNTIME_NAMES: Record<string, string> = { node: 'Node', npm: 'npm', pnpm: 'pnpm', yarn: 'Yarn', python: 'Python', go: 'Go', java: 'Java', ruby: 'Ruby' };
const ENGINE_REQUIREMENTS: readonly RegExp[] = [
  // npm EBADENGINE / notsup: Required: {"node":">=20"}
  /Required:\s*\{\s*"(node|npm|pnpm|yarn)"\s*:\s*"([^"]{1,20})"/i,
  // yarn: The engine "node" is incompatible with this module. Expected version ">=20".
  /engine "(node|npm|pnpm|yarn)" is incompatible with this module\. Expected version "([^"]{1,20})"/i,
  // Generic: requires Node >= 20 / Python 3.11 or later is required
  /\brequires? (node|python|go|java|ruby)(?:\.js)?(?: version)?\s*((?:>=?|\^|~)\s*v?\d+(?:\.\d+)*|v?\d+(?:\.\d+)*\s+or (?:later|higher|newer|above))/i,
  /\b(node|python|go|java|ruby)(?:\.js)?\s*((?:>=?)\s*v?\d+(?:\.\d+)*|v?\d+(?:\.\d+)*\s+or (?:later|higher|newer|above)) is required\b/i,
  // pip: Package 'x' requires a different Python: 3.9.18 not in '>=3.11'
  /requires a different (Python): [\d.]+ not in '([^']{1,20})'/i,
];

/** The project's own version pins: a failure that quotes one is the project's choice, not a dependency's. */
const OWN_MANIFEST = /(?:go\.mod|package\.json|pyproject\.toml|\.nvmrc|\.node-version|\.python-version|\.tool-versions|rust-toolchain(?:\.toml)?)\W*$/i;

// A passing test run is not read: it is an observation of one run, not the project's rule, and
// stays in the turn's episode; it becomes a memory only when someone states it as the rule.

export function toolFacts(turn: ExtractTurn): ToolFact[] {
  if (turn.role !== 'tool' || (turn.tool !== undefined && !SHELL_TOOLS.test(turn.tool))) return [];
  const text = turn.text;

  for (const re of ENGINE_REQUIREMENTS) {
    const m = re.exec(text);
    if (!m) continue;
    // "go: go.mod requires go >= 1.24.0": the project's own manifest, which the session is about to
    // change one way or the other; only a dependency's requirement is a constraint on the project.
    const line = text.slice(text.lastIndexOf('\n', m.index) + 1, m.index);
    if (OWN_MANIFEST.test(line)) continue;
    const name = RUNTIME_NAMES[m[1]!.toLowerCase()] ?? m[1]!;
    const range = m[2]!.replace(/^(>=?|\^|~)\s*v?/, (_all, op: string) => `${op} `).trim();
    return [{ content: `Requires ${name} ${range}.`, category: 'constraint', confidence: TOOL_CONFIDENCE }];
  }

  return [];
}
