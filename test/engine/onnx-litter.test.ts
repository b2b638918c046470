/**
 * Nothing left in the temp dir: ONNX Runtime's empty `mat-debug-<pid>.log` (one per process that
 * created an inference session: the store's vector scan over a large resident view, the model) is
 * removed once the session is up (engine/onnx-litter.ts).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { removeOnnxDebugLog } from '../../engine/onnx-litter.js';
import { run } from '../helpers/daemon.js';
import { repoRoot, tempDir } from '../helpers/tmp.js';

it('leaves no mat-debug-<pid>.log after a vector scan runs on ONNX Runtime', async () => {
  const tmp = tempDir('scan-tmp-');
  const scan = repoRoot('dist', 'engine', 'store', 'vector-scan.js');
  // Enough rows that the scan leaves JavaScript for the runtime (JS_SCAN_MAX_PRODUCTS).
  const script = `
    const { VectorScan, JS_SCAN_MAX_PRODUCTS } = await import(${JSON.stringify(scan)});
    const dim = 8, rows = JS_SCAN_MAX_PRODUCTS / dim + 1;
    const s = new VectorScan(dim, (why) => { console.error('unavailable: ' + why); process.exit(3); });
    const out = await s.scores(new Float32Array(rows * dim).fill(0.5), rows, new Float32Array(dim).fill(1));
    if (out.length !== rows || Math.abs(out[0] - 4) > 1e-6) process.exit(4);
    await s.close();`;
  const r = await run(process.execPath, ['--input-type=module', '-e', script], { env: { PATH: process.env.PATH, HOME: process.env.HOME, TMPDIR: tmp } });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(
    fs.readdirSync(tmp).filter((f) => f.startsWith('mat-debug-')),
    [],
  );
});

it('removes only an empty log of this process', () => {
  const tmp = tempDir('onnx-litter-');
  fs.writeFileSync(path.join(tmp, 'mat-debug-42.log'), '');
  fs.writeFileSync(path.join(tmp, 'mat-debug-43.log'), 'something the runtime wrote');
  assert.equal(removeOnnxDebugLog(tmp, 43), false);
  assert.equal(removeOnnxDebugLog(tmp, 44), false);
  assert.equal(removeOnnxDebugLog(tmp, 42), true);
  assert.deepEqual(fs.readdirSync(tmp), ['mat-debug-43.log']);
});
