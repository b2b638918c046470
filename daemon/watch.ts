/**
 * Watches session transcripts with chokidar, so activity in a session (even without hook events)
 * keeps it from being flushed as idle, and its growth is noticed for the idle flush.
 */
import chokidar, { type FSWatcher } from 'chokidar';

export class TranscriptWatcher {
  private watcher: FSWatcher | null = null;
  private readonly files = new Set<string>();

  constructor(private readonly onChange: (file: string) => void) {}

  watch(file: string): void {
    if (this.files.has(file)) return;
    this.files.add(file);
    if (!this.watcher) {
      this.watcher = chokidar.watch([], { persistent: false, ignoreInitial: true, awaitWriteFinish: false });
      this.watcher.on('change', (f: string) => this.onChange(f));
      this.watcher.on('add', (f: string) => this.onChange(f));
      this.watcher.on('error', () => {});
    }
    this.watcher.add(file);
  }

  unwatch(file: string): void {
    if (!this.files.delete(file)) return;
    void this.watcher?.unwatch(file);
  }

  async close(): Promise<void> {
    await this.watcher?.close();
    this.watcher = null;
    this.files.clear();
  }
}
