import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { cosine, resolveModelSpec, TransformersEmbedder } from '../../engine/index.js';
import { quantizeColumns, quantizedModelFolder, quantizeOnnx } from '../../engine/embed/quantize.js';
import { sharedDir, tempDir } from '../helpers/tmp.js';

const TINY = sharedDir('models', 'random-bert-tiny');

test('int8 columns: each weight is within half a step of its scale, and the largest maps to ±127', () => {
  const rows = 5;
  const cols = 3;
  const w = Float32Array.from([0.5, -2, 0, 0.25, 1, 0, -0.5, 0.3, 0, 0.1, -0.7, 0, 0.05, 2, 0]);
  const { q, scales } = quantizeColumns(w, rows, cols);
  assert.deepEqual([...scales].map((s) => +s.toFixed(6)), [+(0.5 / 127).toFixed(6), +(2 / 127).toFixed(6), 1]);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const i = r * cols + c;
      assert.ok(Math.abs(w[i]! - q[i]! * scales[c]!) <= scales[c]! / 2 + 1e-7, `w[${r},${c}]`);
    }
  }
  assert.equal(q[0], 127);
  assert.equal(q[1], -127);
  assert.equal(q[13], 127);
  assert.ok([...q].filter((_, i) => i % cols === 2).every((x) => x === 0), 'an all-zero column stays zero');
});

test('quantizing a model rewrites its weight MatMuls and its word embedding table, and nothing else', () => {
  const src = fs.readFileSync(path.join(TINY, 'onnx', 'model.onnx'));
  const { bytes, report } = quantizeOnnx(src);
  // random-bert-tiny: 2 layers × 6 weight MatMuls (q, k, v, out, ffn in, ffn out), one large table.
  assert.equal(report.matmuls, 12);
  assert.equal(report.gathers, 1);
  assert.ok(bytes.length < src.length * 0.4, `${bytes.length} of ${src.length} bytes`);
  // Quantizing is deterministic.
  assert.ok(quantizeOnnx(src).bytes.equals(bytes));
  assert.throws(() => quantizeOnnx(Buffer.from('not a model at all')), /protobuf|ONNX/);
});

test('SERVICE_MODEL_DTYPE=q8 on an fp32-only folder runs an int8 copy made once, with vectors close to fp32', async () => {
  const cache = tempDir('quant-');
  const fp32Spec = resolveModelSpec({ model: '', modelDir: TINY, cacheDir: cache });
  const q8Spec = resolveModelSpec({ model: '', modelDir: TINY, cacheDir: cache, dtype: 'q8' });
  assert.equal(fp32Spec.dtype, 'fp32');
  assert.equal(fp32Spec.quantizeFrom, null, 'auto keeps the folder as it is');
  assert.equal(q8Spec.dtype, 'q8');
  assert.equal(q8Spec.quantizeFrom, path.resolve(TINY));
  assert.equal(q8Spec.id, fp32Spec.id, 'vectors of both are the same model');

  const fp32 = new TransformersEmbedder({ spec: fp32Spec, cacheDir: cache, offline: true });
  const q8 = new TransformersEmbedder({ spec: q8Spec, cacheDir: cache, offline: true });
  const texts = ['we decided to use postgres for billing', 'prefer tabs over spaces in go files', 'the deploy runs on fridays only'];
  const a = await fp32.embedDocuments(texts);
  const b = await q8.embedDocuments(texts);
  for (let i = 0; i < texts.length; i++) assert.ok(cosine(a[i]!, b[i]!) > 0.99, `text ${i}: cosine ${cosine(a[i]!, b[i]!)}`);
  // Still a lexical stand-in: texts that share words stay closer than texts that share none.
  const [x, y, z] = await q8.embedDocuments(['postgres billing decision', 'billing uses postgres', 'tabs in go files']);
  assert.ok(cosine(x!, y!) > cosine(x!, z!));

  const folder = await quantizedModelFolder(TINY, path.join(cache, 'quantized'));
  const file = path.join(folder, 'onnx', 'model_quantized.onnx');
  assert.ok(fs.existsSync(path.join(folder, 'tokenizer.json')), 'tokenizer and config come along');
  const made = fs.statSync(file).mtimeMs;
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(await quantizedModelFolder(TINY, path.join(cache, 'quantized')), folder);
  assert.equal(fs.statSync(file).mtimeMs, made, 'made once, then reused');
  await fp32.close();
  await q8.close();
});

test('a folder that already has an int8 file is used as it is, whatever the choice', () => {
  const dir = path.join(tempDir('q8-only-'), 'some-model');
  fs.mkdirSync(path.join(dir, 'onnx'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'onnx', 'model_quantized.onnx'), '');
  for (const dtype of ['auto', 'q8', 'fp32'] as const) {
    const spec = resolveModelSpec({ model: '', modelDir: dir, cacheDir: '', dtype });
    assert.equal(spec.dtype, 'q8', dtype);
    assert.equal(spec.quantizeFrom, null, dtype);
  }
  assert.equal(resolveModelSpec({ model: 'Xenova/all-MiniLM-L6-v2', modelDir: '', cacheDir: '', dtype: 'fp32' }).dtype, 'fp32');
  assert.equal(resolveModelSpec({ model: 'Xenova/all-MiniLM-L6-v2', modelDir: '', cacheDir: '' }).dtype, 'q8');
});
