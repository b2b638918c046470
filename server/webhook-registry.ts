/**
 * What /v1/webhooks needs from a project's webhooks: the registry, the delivery log and the test
 * delivery. Two implementations: `FileWebhooks` here (embedded default: `webhooks/` in the
 * project's data dir, delivered by this process) and `PgWebhooks` (PostgreSQL, shared by every
 * replica, delivered by whichever replica claims each delivery).
 */
import type { ProjectEventLog } from './event-log.js';
import type { WebhookDispatcher } from './webhook-dispatcher.js';
import type { Delivery, DeliveryOutbox } from './webhook-outbox.js';
import type { Webhook, WebhookStore } from './webhook-store.js';

export type WebhookInput = Pick<Webhook, 'url' | 'events' | 'description' | 'active' | 'secret' | 'member_id'>;
export type WebhookPatch = Partial<Pick<Webhook, 'url' | 'events' | 'description' | 'active'>>;

export interface ProjectWebhooks {
  list(): Promise<Webhook[]>;
  get(id: string): Promise<Webhook | undefined>;
  /** A new webhook; it receives the events recorded after this call began (none before). */
  create(input: WebhookInput): Promise<Webhook>;
  /** Change a webhook; resuming a paused one skips the events recorded while it was paused. */
  update(id: string, patch: WebhookPatch): Promise<Webhook | undefined>;
  /** Delete a webhook with its deliveries (pending ones are never sent). */
  remove(id: string): Promise<boolean>;
  /** Its deliveries, newest first. */
  deliveries(id: string): Promise<Delivery[]>;
  /** Send and record one signed `webhook.test` delivery. */
  test(hook: Webhook): Promise<Delivery>;
  close(): Promise<void>;
}

export class FileWebhooks implements ProjectWebhooks {
  constructor(
    private readonly store: WebhookStore,
    private readonly outbox: DeliveryOutbox,
    private readonly dispatcher: WebhookDispatcher,
    private readonly log: ProjectEventLog,
  ) {}

  async list(): Promise<Webhook[]> {
    return this.store.list();
  }

  async get(id: string): Promise<Webhook | undefined> {
    return this.store.get(id);
  }

  async create(input: WebhookInput): Promise<Webhook> {
    // The head counts every event appended so far (on PostgreSQL they are committed at a flush).
    await this.log.flush();
    return this.store.create({ ...input, from_seq: this.log.head });
  }

  async update(id: string, patch: WebhookPatch): Promise<Webhook | undefined> {
    const hook = this.store.get(id);
    if (!hook) return undefined;
    // Events that happen while a webhook is paused are not delivered later (flushed first, so the
    // head counts every event appended before the resume).
    if (patch.active === true && !hook.active) {
      await this.log.flush();
      return this.store.update(id, { ...patch, from_seq: this.log.head });
    }
    return this.store.update(id, patch);
  }

  async remove(id: string): Promise<boolean> {
    const removed = this.store.remove(id);
    this.outbox.removeWebhook(id);
    return removed;
  }

  async deliveries(id: string): Promise<Delivery[]> {
    return this.outbox.forWebhook(id);
  }

  test(hook: Webhook): Promise<Delivery> {
    return this.dispatcher.test(hook);
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
    await this.outbox.close();
  }
}
