/**
 * One ProjectRuntime per project, opened on first use and shared by every request of that
 * project; all engines share one embedder.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Embedder, Logger } from '../engine/index.js';
import { openProject, type ProjectOptions, type ProjectRuntime } from './project-runtime.js';

export interface ProjectRegistryOptions extends Omit<ProjectOptions, 'dir' | 'projectId' | 'embedder' | 'logger'> {
  dataDir: string;
  embedder: Embedder | null;
  logger: Logger;
}

export class ProjectRegistry {
  private readonly open = new Map<string, Promise<ProjectRuntime>>();
  private closing = false;

  constructor(private readonly opts: ProjectRegistryOptions) {}

  projectDir(projectId: string): string {
    return path.join(this.opts.dataDir, 'projects', projectId);
  }

  get(projectId: string): Promise<ProjectRuntime> {
    if (this.closing) return Promise.reject(new Error('the server is shutting down'));
    let p = this.open.get(projectId);
    if (!p) {
      const { dataDir: _d, ...rest } = this.opts;
      p = openProject({ ...rest, dir: this.projectDir(projectId), projectId });
      p.catch(() => this.open.delete(projectId));
      this.open.set(projectId, p);
    }
    return p;
  }

  /** Open the projects that have webhooks, so pending and not yet fanned-out deliveries resume at start. */
  async resumeWebhooks(projectIds: readonly string[]): Promise<void> {
    if (this.opts.openWebhooks) return; // in the database: the server-wide dispatcher sends them
    for (const id of projectIds) {
      if (!fs.existsSync(path.join(this.projectDir(id), 'webhooks', 'webhooks.json'))) continue;
      // One damaged project must not keep the others from starting; its requests will fail with 500.
      await this.get(id).catch((err: unknown) => this.opts.logger.error('could not open a project to resume its webhooks', { err, project_id: id }));
    }
  }

  async closeAll(): Promise<void> {
    this.closing = true;
    const all = [...this.open.values()];
    this.open.clear();
    for (const p of all) await (await p.catch(() => null))?.close();
  }
}
