/**
 * The benchmarks' `--dtype` option and how the tables describe the model it selects. The default
 * is q8: the service quantizes the fp32 stand-in model once (SERVICE_MODEL_DTYPE=q8), which runs
 * the same int8 arithmetic as the product's default model, the int8 build of all-MiniLM-L6-v2.
 * `--dtype fp32` measures the stand-in's own fp32 file.
 */
import type { ModelDtypeChoice } from '../../engine/index.js';

export const BENCH_DTYPE: ModelDtypeChoice = 'q8';

export function modelDtype(value: string | undefined): ModelDtypeChoice {
  const v = value ?? BENCH_DTYPE;
  if (v !== 'q8' && v !== 'fp32' && v !== 'auto') throw new Error(`--dtype must be q8, fp32 or auto, not ${JSON.stringify(v)}`);
  return v;
}

/** "`random-minilm-l6` (…, int8 …)" for the tables. */
export function modelDescription(name: string, dtype: ModelDtypeChoice): string {
  const weights =
    dtype === 'q8'
      ? 'int8 weights that the service made from its fp32 file (`SERVICE_MODEL_DTYPE=q8`), as the product runs its default int8 model'
      : 'its fp32 file as shipped';
  return `\`${name}\` (random weights, the shape and compute of all-MiniLM-L6-v2; ${weights})`;
}
