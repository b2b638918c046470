/**
 * Claude Code's compaction summary ("This session is being continued from a previous
 * conversation…") follows a fixed outline: 1. Primary Request and Intent, 2. Key Technical
 * Concepts, 3. Files and Code Sections, 4. Errors and fixes, 5. Problem Solving, 6. All user
 * messages, 7. Pending Tasks, 8. Current Work, 9. Optional Next Step. Some of its sections hold
 * what lasts (what the user asked for and insisted on, errors and their fixes, how problems were
 * solved); the others describe the work at the moment of compaction: a list of topics, a change log
 * per file, what was pending, what was under way, what to do next. Those never become extracted
 * memories; the summary's own record (`summaryRecap`, kept by the daemon's documents) holds the
 * topics and files beside the lasting sections. "All user messages" quotes prompts the reader has already
 * read where they were typed, beside the question each one answered; quoted again without that
 * context ("A. is fine", a brainstorm's list of fragments) they only make junk.
 */

/** Sections that describe the moment of compaction, or repeat what was read where it was said. */
const MOMENT_SECTIONS = /^(?:key technical concepts|files and code sections|all user messages|pending tasks|current work|optional next steps?)$/i;
/** A top-level heading of the outline: "3. Files and Code Sections:" (bold or Markdown heading tolerated). */
const OUTLINE_HEADING = /^[ \t]*(?:#{1,4}[ \t]*)?(?:\*\*)?\d{1,2}\.[ \t]+(?:\*\*)?([A-Za-z][A-Za-z ]{2,40}?)(?:\*\*)?:(?:\*\*)?[ \t]*$/;
const OUTLINE_NAMES = /^(?:primary request and intent|key technical concepts|files and code sections|errors and fixes|problem solving|all user messages|pending tasks|current work|optional next steps?)$/i;

/** The summary without the sections that describe the moment of compaction. */
export function lastingSummary(text: string): string {
  const out: string[] = [];
  let skipping = false;
  for (const line of text.split(/\r?\n/)) {
    const m = OUTLINE_HEADING.exec(line);
    const name = m?.[1]?.trim();
    if (name && OUTLINE_NAMES.test(name)) {
      skipping = MOMENT_SECTIONS.test(name);
      out.push('');
      continue;
    }
    if (!skipping) out.push(line);
  }
  return out.join('\n');
}

/** Sections of the outline that say what the earlier conversation established, in the order a recap keeps them. */
const RECAP_ORDER = ['primary request and intent', 'key technical concepts', 'errors and fixes', 'problem solving', 'files and code sections'];

/**
 * The summary as a recap of what the compacted conversation established: what was asked and
 * insisted on, the concepts, errors and fixes, how problems were solved, then the files (the
 * longest section, last); without the opening line, the quoted user messages and what was pending,
 * under way or next at the moment of compaction. A summary without the outline is kept whole.
 */
export function summaryRecap(text: string): string {
  const sections = new Map<string, string[]>();
  let current: string[] | null = null;
  for (const line of text.split(/\r?\n/)) {
    const name = OUTLINE_HEADING.exec(line)?.[1]?.trim();
    if (name && OUTLINE_NAMES.test(name)) {
      current = [`${name}:`];
      sections.set(name.toLowerCase(), current);
      continue;
    }
    current?.push(line);
  }
  if (sections.size === 0) return text.trim();
  return RECAP_ORDER.flatMap((n) => {
    const lines = sections.get(n);
    return lines && lines.slice(1).some((l) => l.trim()) ? [lines.join('\n').trim()] : [];
  }).join('\n\n');
}
