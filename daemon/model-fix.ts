/**
 * What to do when the embedding model is unavailable, from the reason the embedder gave: shown by
 * `service status` and the dashboard beside the reason, so a typo in SERVICE_MODEL_DIR or an
 * offline machine is a clear configuration fix, not a raw library message.
 */
import fs from 'node:fs';

export function modelFix(model: { state: string; detail?: Record<string, unknown> }): string | null {
  if (model.state !== 'unavailable') return null;
  const reason = typeof model.detail?.reason === 'string' ? model.detail.reason : '';
  const folder = /cannot load the model folder (\S+?):/.exec(reason)?.[1];
  if (folder) {
    if (!fs.existsSync(folder)) return `SERVICE_MODEL_DIR names ${folder}, which does not exist: correct it (service config set model_dir <folder>, or unset it to download the model); the daemon restarts on the change`;
    return `${folder} is not a usable model (it needs config.json, tokenizer.json and onnx/model.onnx): replace it, or point SERVICE_MODEL_DIR elsewhere (service config set model_dir <folder>)`;
  }
  if (/SERVICE_OFFLINE/.test(reason)) return 'download it once with SERVICE_OFFLINE unset (service config unset offline), or point SERVICE_MODEL_DIR at a local copy (service config set model_dir <folder>)';
  if (/worker stopped/.test(reason)) return 'service daemon restart; if it stops again, see daemon.log in the data dir';
  if (/no embedding model configured/.test(reason)) return 'set SERVICE_MODEL (service config set model <id>) or SERVICE_MODEL_DIR';
  return 'check the network (the model downloads once, into the data dir), or point SERVICE_MODEL_DIR at a local copy (service config set model_dir <folder>); then service daemon restart';
}
