/** An explicit `remember`: one memory, stated by the user, stored at once (pause does not apply). */
import { EngineError, redact, type Config, type Extractor, type IngestResult, type MemoryEngine } from '../engine/index.js';
import { repoInfo } from './repo.js';

export interface RememberRequest {
  text: string;
  personal?: boolean;
  category?: string;
  cwd?: string;
  session_id?: string;
}

export async function remember(deps: { config: Config; extractor: Extractor; ready: () => Promise<MemoryEngine> }, req: RememberRequest): Promise<IngestResult[]> {
  const text = typeof req.text === 'string' ? req.text.trim() : '';
  if (!text) throw new EngineError('VALIDATION', 'text must be a non-empty string', { field: 'text' });
  const engine = await deps.ready();
  const clean = redact(text).text;
  const info = repoInfo(req.cwd ?? process.cwd());
  const guessed = (await deps.extractor.extract([{ role: 'user', text: clean }]))[0];
  const category = (req.category ?? guessed?.category ?? 'note') as IngestResult['category'];
  return engine.ingest(
    [{ content: clean, category: category as never, space: req.personal ? 'personal' : 'project', confidence: 1, subject: guessed?.subject ?? null, role: 'user' }],
    {
      user_id: deps.config.userId,
      owner_id: deps.config.userId,
      run_id: req.session_id ?? null,
      repo: req.personal ? null : info.repo,
      dir: req.personal ? null : info.dir,
      source: { kind: 'remember', session_id: req.session_id ?? null },
    },
  );
}
