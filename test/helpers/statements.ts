/**
 * The real statement corpora (test/fixtures/cjk-statements, eu-statements, ru-statements) through the
 * rule extractor: how many of each language's rules it stores, and every other sentence it stores.
 */
import fs from 'node:fs';
import path from 'node:path';
import { RuleExtractor } from '../../engine/extract/rule-extractor.js';

interface Statement {
  text: string;
  lang: string;
  kind: 'rule' | 'request' | 'question' | 'narration';
  role: 'user' | 'assistant';
}

export interface CorpusReading {
  /** Rules in the file and rules stored, per language. */
  langs: Record<string, { rules: number; kept: number }>;
  rules: number;
  kept: number;
  /** Requests, questions and narration the extractor stored: none should be. */
  oneOffs: string[];
}

/** Reads `test/fixtures/<folder>/<file>`, one sentence at a time, as the role that wrote it. */
export async function readStatements(folder: string, file = 'statements.json'): Promise<CorpusReading> {
  const corpus = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../../test/fixtures', folder, file), 'utf8')) as Statement[];
  const out: CorpusReading = { langs: {}, rules: 0, kept: 0, oneOffs: [] };
  for (const s of corpus) {
    const stored = (await new RuleExtractor().extract([{ role: s.role, text: s.text }])).length > 0;
    const t = (out.langs[s.lang] ??= { rules: 0, kept: 0 });
    if (s.kind === 'rule') {
      t.rules++;
      out.rules++;
      if (stored) {
        t.kept++;
        out.kept++;
      }
    } else if (stored) {
      out.oneOffs.push(s.text);
    }
  }
  return out;
}
