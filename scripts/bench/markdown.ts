/** Markdown tables and the marked section of BENCHMARKS.md a benchmark owns. */

export function table(header: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const line = (cells: readonly (string | number)[]): string => `| ${cells.map((c) => String(c).replace(/\|/g, '\\|')).join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

export const BENCHMARKS_HEADER = '# Benchmarks\n\nMeasured numbers, each section written by the script named in it. Re-run the command to refresh a section; other sections are left as they are.\n';

/**
 * `doc` with the text between `<!-- bench:NAME:start -->` and `<!-- bench:NAME:end -->` replaced by
 * `body` (the section is appended when missing; a missing doc gets the standard header).
 */
export function withSection(doc: string | null, name: string, body: string): string {
  const start = `<!-- bench:${name}:start -->`;
  const end = `<!-- bench:${name}:end -->`;
  const block = `${start}\n${body.trim()}\n${end}`;
  const text = doc ?? BENCHMARKS_HEADER;
  const a = text.indexOf(start);
  const b = text.indexOf(end);
  if (a >= 0 && b > a) return text.slice(0, a) + block + text.slice(b + end.length);
  return `${text.trimEnd()}\n\n${block}\n`;
}
