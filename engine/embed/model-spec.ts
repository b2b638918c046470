/**
 * How to load and use an embedding model: where it comes from, its vector size, pooling, and the
 * query/document prefixes some models are trained with.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface ModelSpec {
  /** The id stored beside every vector (model name, or `local:<folder name>`). */
  id: string;
  /** Name passed to transformers.js (`org/name`, or the folder name under `localRoot`). */
  name: string;
  /** Parent folder of a local model (loaded with no network); null for a hub model. */
  localRoot: string | null;
  dim: number;
  pooling: 'mean' | 'cls';
  dtype: 'fp32' | 'q8';
  /**
   * A local folder with only an fp32 file to quantize to int8 before loading (the copy is made
   * once, in the model cache; see quantize.ts); null otherwise.
   */
  quantizeFrom: string | null;
  queryPrefix: string;
  documentPrefix: string;
  /** Tokens kept per text; longer text is truncated (quadratic attention cost). */
  maxTokens: number;
}

interface Family {
  test: RegExp;
  pooling: 'mean' | 'cls';
  queryPrefix: string;
  documentPrefix: string;
}

const FAMILIES: Family[] = [
  { test: /bge-/i, pooling: 'cls', queryPrefix: 'Represent this sentence for searching relevant passages: ', documentPrefix: '' },
  { test: /(^|\/)e5-|multilingual-e5/i, pooling: 'mean', queryPrefix: 'query: ', documentPrefix: 'passage: ' },
  { test: /nomic-embed/i, pooling: 'mean', queryPrefix: 'search_query: ', documentPrefix: 'search_document: ' },
  { test: /./, pooling: 'mean', queryPrefix: '', documentPrefix: '' },
];

/** Output sizes of hub models we know, so tables can be created before a download finishes. */
const KNOWN_DIMS: Record<string, number> = {
  'Xenova/all-MiniLM-L6-v2': 384,
  'Xenova/all-MiniLM-L12-v2': 384,
  'Xenova/paraphrase-MiniLM-L6-v2': 384,
  'Xenova/bge-small-en-v1.5': 384,
  'Xenova/bge-base-en-v1.5': 768,
  'Xenova/e5-small-v2': 384,
  'Xenova/multilingual-e5-small': 384,
  'Xenova/all-mpnet-base-v2': 768,
  'nomic-ai/nomic-embed-text-v1.5': 768,
};

export const DEFAULT_DIM = 384;

function family(name: string): Family {
  return FAMILIES.find((f) => f.test.test(name))!;
}

function readHidden(configFile: string): number | null {
  try {
    const cfg = JSON.parse(fs.readFileSync(configFile, 'utf8')) as { hidden_size?: number; d_model?: number; dim?: number };
    return cfg.hidden_size ?? cfg.d_model ?? cfg.dim ?? null;
  } catch {
    return null;
  }
}

/** SERVICE_MODEL_DTYPE: which weights to run (see the config table). */
export type ModelDtypeChoice = 'auto' | 'q8' | 'fp32';

/**
 * Resolve the model to use. A local folder wins over a hub id. For a hub model the cache folder is
 * consulted for its size; unknown uncached models assume 384 until loaded.
 */
export function resolveModelSpec(opts: { model: string; modelDir: string; cacheDir: string; dtype?: ModelDtypeChoice }): ModelSpec {
  const choice = opts.dtype ?? 'auto';
  if (opts.modelDir) {
    const dir = path.resolve(opts.modelDir);
    const name = path.basename(dir);
    const hasFp32 = fs.existsSync(path.join(dir, 'onnx', 'model.onnx'));
    const hasQ8 = fs.existsSync(path.join(dir, 'onnx', 'model_quantized.onnx'));
    const fam = family(name);
    return {
      id: `local:${name}`,
      name,
      localRoot: path.dirname(dir),
      dim: readHidden(path.join(dir, 'config.json')) ?? DEFAULT_DIM,
      pooling: fam.pooling,
      dtype: localDtype(choice, hasFp32, hasQ8),
      quantizeFrom: choice === 'q8' && hasFp32 && !hasQ8 ? dir : null,
      queryPrefix: fam.queryPrefix,
      documentPrefix: fam.documentPrefix,
      maxTokens: 256,
    };
  }
  const fam = family(opts.model);
  return {
    id: opts.model,
    name: opts.model,
    localRoot: null,
    dim: KNOWN_DIMS[opts.model] ?? readHidden(path.join(opts.cacheDir, opts.model, 'config.json')) ?? DEFAULT_DIM,
    pooling: fam.pooling,
    dtype: choice === 'fp32' ? 'fp32' : 'q8',
    quantizeFrom: null,
    queryPrefix: fam.queryPrefix,
    documentPrefix: fam.documentPrefix,
    maxTokens: 256,
  };
}

/** Which file of a local folder to load: the one asked for when it exists (q8 can be made from fp32). */
function localDtype(choice: ModelDtypeChoice, hasFp32: boolean, hasQ8: boolean): 'fp32' | 'q8' {
  if (choice === 'q8') return hasQ8 || hasFp32 ? 'q8' : 'fp32';
  if (choice === 'fp32') return hasFp32 || !hasQ8 ? 'fp32' : 'q8';
  return hasQ8 && !hasFp32 ? 'q8' : 'fp32';
}
