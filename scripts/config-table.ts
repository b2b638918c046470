/**
 * Regenerates the configuration table in README.md from the config schema
 * (`npm run docs`). test/docs/readme.test.ts fails when the README is stale.
 */
import fs from 'node:fs';
import path from 'node:path';
import { configTableRows } from '../engine/index.js';

export const START = '<!-- config-table:start -->';
export const END = '<!-- config-table:end -->';

export function configTable(): string {
  const lines = ['| variable | default | accepts | meaning |', '| --- | --- | --- | --- |'];
  for (const r of configTableRows()) lines.push(`| \`${r.env}\` | ${r.default} | ${r.allowed} | ${r.description} |`);
  return lines.join('\n');
}

export function withTable(readme: string): string {
  const a = readme.indexOf(START);
  const b = readme.indexOf(END);
  if (a < 0 || b < a) throw new Error(`README.md needs the markers ${START} and ${END}`);
  return `${readme.slice(0, a + START.length)}\n${configTable()}\n${readme.slice(b)}`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  const file = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..', 'README.md');
  fs.writeFileSync(file, withTable(fs.readFileSync(file, 'utf8')));
  console.log(`updated ${file}`);
}
