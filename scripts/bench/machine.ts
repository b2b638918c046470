/** A one-line description of the machine a benchmark ran on. */
import fs from 'node:fs';
import os from 'node:os';

export function cpuModel(): string {
  try {
    const line = fs
      .readFileSync('/proc/cpuinfo', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('model name'));
    if (line) return line.split(':').slice(1).join(':').trim();
  } catch {
    // not Linux
  }
  return os.cpus()[0]?.model ?? 'unknown CPU';
}

export function machineDescription(): string {
  const ram = Math.round(os.totalmem() / 2 ** 30);
  return `${cpuModel()}, ${os.availableParallelism()} cores, ${ram} GB RAM, Node ${process.version}, ${os.platform()} ${os.release()}`;
}
