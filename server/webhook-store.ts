/**
 * One project's webhook subscriptions, in `webhooks/webhooks.json` (owner-only permissions: it
 * holds the signing secrets, which deliveries need in clear).
 */
import path from 'node:path';
import { uuidv7 } from '../engine/index.js';
import { readJson, writeAtomic } from './atomic-file.js';

export interface Webhook {
  webhook_id: string;
  url: string;
  /** Event types, families (`memory.*`) or `*`. */
  events: string[];
  description: string | null;
  active: boolean;
  secret: string;
  /** The member whose key created it: it receives only events that member may see. */
  member_id: string;
  /** Events up to this seq happened before it existed and are never delivered to it. */
  from_seq: number;
  created_at: string;
  updated_at: string;
}

/** A webhook as the API shows it (never the secret). */
export type WebhookJson = Omit<Webhook, 'secret' | 'from_seq'>;

export function webhookJson(w: Webhook): WebhookJson {
  const { secret: _s, from_seq: _f, ...rest } = w;
  return rest;
}

export class WebhookStore {
  private readonly file: string;
  private hooks: Webhook[];

  constructor(dir: string) {
    this.file = path.join(dir, 'webhooks.json');
    this.hooks = readJson<{ webhooks: Webhook[] }>(this.file, { webhooks: [] }).webhooks;
  }

  private save(): void {
    writeAtomic(this.file, JSON.stringify({ webhooks: this.hooks }, null, 1));
  }

  list(): Webhook[] {
    return this.hooks.map((h) => ({ ...h }));
  }

  get(id: string): Webhook | undefined {
    const h = this.hooks.find((x) => x.webhook_id === id);
    return h ? { ...h } : undefined;
  }

  create(input: { url: string; events: string[]; description: string | null; active: boolean; secret: string; member_id: string; from_seq: number }): Webhook {
    const now = new Date().toISOString();
    const hook: Webhook = { webhook_id: uuidv7(), ...input, created_at: now, updated_at: now };
    this.hooks.push(hook);
    this.save();
    return { ...hook };
  }

  update(id: string, patch: Partial<Pick<Webhook, 'url' | 'events' | 'description' | 'active' | 'from_seq'>>): Webhook | undefined {
    const h = this.hooks.find((x) => x.webhook_id === id);
    if (!h) return undefined;
    Object.assign(h, patch, { updated_at: new Date().toISOString() });
    this.save();
    return { ...h };
  }

  remove(id: string): boolean {
    const before = this.hooks.length;
    this.hooks = this.hooks.filter((x) => x.webhook_id !== id);
    if (this.hooks.length === before) return false;
    this.save();
    return true;
  }
}
