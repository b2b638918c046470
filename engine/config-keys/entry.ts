/** The shape of one key of the configuration schema (engine/config.ts). */

export type Kind = 'string' | 'int' | 'bool' | 'enum' | 'url' | 'path' | 'secret';

export interface Entry<K extends Kind = Kind, V = unknown> {
  env: string;
  kind: K;
  default: V;
  /** Shown in the README when the default is computed at run time. */
  defaultLabel?: string;
  values?: readonly string[];
  min?: number;
  max?: number;
  /** `hooks`: read by the hook scripts only (the daemon does not use it). */
  group: 'plugin' | 'hooks' | 'daemon' | 'server' | 'model' | 'extractor' | 'sync';
  description: string;
}
