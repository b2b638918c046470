/**
 * ONNX Runtime's bundled telemetry library creates an empty `mat-debug-<pid>.log` in the temp dir
 * the first time a process creates an inference session, and never removes it: one file per
 * daemon, worker and CLI run that loaded the model. It is created once per process, so removing
 * it (when still empty) right after the first session exists clears it for good.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Remove this process's `mat-debug-<pid>.log` if it is there and empty; true when removed. */
export function removeOnnxDebugLog(tmpDir = os.tmpdir(), pid = process.pid): boolean {
  const file = path.join(tmpDir, `mat-debug-${pid}.log`);
  try {
    if (fs.statSync(file).size !== 0) return false;
    fs.unlinkSync(file);
    return true;
  } catch {
    return false;
  }
}
