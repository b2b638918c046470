/**
 * `infer: true` adds: messages → redacted turns → extracted candidates → consolidated with what
 * is stored (ADD | UPDATE | NOOP). The same path serves synchronous requests and queued jobs.
 */
import { redact, type Extractor, type ExtractTurn, type IngestResult, type MemoryEngine, type Source } from '../engine/index.js';

export interface InferInput {
  messages: { role: 'user' | 'assistant' | 'system' | 'tool'; content: string }[];
  user_id: string;
  owner_id: string | null;
  agent_id?: string | null | undefined;
  app_id?: string | null | undefined;
  run_id?: string | null | undefined;
  repo?: string | null | undefined;
  dir?: string | null | undefined;
  metadata?: Record<string, unknown> | undefined;
  source?: Source | undefined;
}

export async function inferMemories(engine: MemoryEngine, extractor: Extractor, input: InferInput): Promise<IngestResult[]> {
  const turns: ExtractTurn[] = input.messages
    .filter((m) => m.role !== 'system' && m.content.trim() !== '')
    .map((m) => ({ role: m.role === 'tool' ? 'tool' : m.role === 'assistant' ? 'assistant' : 'user', text: redact(m.content).text }));
  if (turns.length === 0) return [];
  const candidates = await extractor.extract(turns);
  return engine.ingest(candidates, {
    user_id: input.user_id,
    owner_id: input.owner_id,
    agent_id: input.agent_id ?? null,
    app_id: input.app_id ?? null,
    run_id: input.run_id ?? null,
    repo: input.repo ?? null,
    dir: input.dir ?? null,
    source: input.source ?? { kind: 'api' },
    ...(input.metadata ? { metadata: input.metadata } : {}),
  });
}
