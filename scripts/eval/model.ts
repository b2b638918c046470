/**
 * Which embedding model an evaluation runs with, and how its quality numbers may be labelled.
 * `--model-dir` wins, then `SERVICE_MODEL_DIR`, then the random-weight MiniLM-shape model of
 * ../shared/models. A folder whose name starts with `random-` holds random weights (see
 * ../shared/models/README.md): its vectors act like a projection of the bag of words, so every
 * quality number measured with it is a "lexical stand-in", never a real model's result.
 */
import path from 'node:path';
import { createEmbedder, type Embedder } from '../../engine/index.js';

export interface EvalModel {
  dir: string;
  /** Folder name (the engine stores `local:<name>` as the model id). */
  name: string;
  /** True for the random-weight folders of ../shared/models. */
  standIn: boolean;
  /** How result rows are labelled: the model name, or "lexical stand-in (name)". */
  label: string;
}

export function resolveEvalModel(repoRoot: string, flag: string | undefined, env: NodeJS.ProcessEnv = process.env): EvalModel {
  const fromEnv = env.SERVICE_MODEL_DIR?.trim();
  const dir = path.resolve(flag ?? (fromEnv || path.join(repoRoot, '..', 'shared', 'models', 'random-minilm-l6')));
  const name = path.basename(dir);
  const standIn = name.startsWith('random-');
  return { dir, name, standIn, label: standIn ? `lexical stand-in (${name}, random weights)` : name };
}

/** The engine's own embedder on that folder (no network). */
export async function loadEmbedder(model: EvalModel, cacheDir: string): Promise<{ embedder: Embedder; loadMs: number }> {
  const embedder = createEmbedder({ model: '', modelDir: model.dir, offline: true, cacheDir });
  const t0 = performance.now();
  await embedder.ready();
  return { embedder, loadMs: performance.now() - t0 };
}
