/**
 * One project's webhooks in PostgreSQL (SERVICE_DATABASE_URL), shared by every replica: the
 * registry in `ms_webhooks`, deliveries in `ms_deliveries` (sent by PgWebhookDispatcher).
 *
 * - Deliveries are created in the same transaction as the events they carry (`fanOutDeliveries`,
 *   called by PgEventLog under the project's head row lock), so a committed event always has its
 *   deliveries and a crash can never lose or repeat a fan-out.
 * - Create and resume take `from_seq` under the same head row lock, so a webhook receives exactly
 *   the events committed after it was created (or resumed): an event transaction that committed
 *   before got a seq at or below `from_seq`, one that commits after sees the webhook.
 */
import { uuidv7, type SqlClient, type SqlQueryable } from '../engine/index.js';
import { lockEventHead } from './pg-event-insert.js';
import type { EventEntry, ProjectEventLog } from './event-log.js';
import { matchesPatterns, visibleTo } from './event-types.js';
import { DB_NOW_MS } from './pg-state.js';
import type { PgWebhookDispatcher } from './pg-webhook-dispatcher.js';
import type { ProjectWebhooks, WebhookInput, WebhookPatch } from './webhook-registry.js';
import type { Attempt, Delivery, DeliveryStatus } from './webhook-outbox.js';
import type { Webhook } from './webhook-store.js';

/** The channel a committed fan-out NOTIFYs, so idle dispatchers look at once. */
export const DELIVERY_CHANNEL = 'ms_deliveries';

const HOOK_COLS = 'webhook_id, url, events, description, active, secret, member_id, from_seq, created_at, updated_at';

/** A row of ms_webhooks (bigint arrives as a string from drivers that keep its precision). */
type HookRow = Omit<Webhook, 'from_seq'> & { from_seq: string | number };

function hookOf(r: HookRow): Webhook {
  return { ...r, events: [...r.events], from_seq: Number(r.from_seq) };
}

export const DELIVERY_COLS = 'delivery_id, project_id, webhook_id, event_id, event_seq, type, status, attempts, next_at_ms, created_at, updated_at, test';

export interface DeliveryRow {
  delivery_id: string;
  project_id: string;
  webhook_id: string;
  event_id: string;
  event_seq: string | number | null;
  type: string;
  status: DeliveryStatus;
  attempts: Attempt[];
  next_at_ms: string | number | null;
  created_at: string;
  updated_at: string;
  test: boolean;
}

export function deliveryOf(r: DeliveryRow): Delivery {
  return {
    delivery_id: r.delivery_id,
    webhook_id: r.webhook_id,
    event_id: r.event_id,
    event_seq: r.event_seq === null ? null : Number(r.event_seq),
    type: r.type,
    status: r.status,
    attempts: r.attempts,
    next_attempt_at: r.status === 'PENDING' && r.next_at_ms !== null ? new Date(Number(r.next_at_ms)).toISOString() : null,
    created_at: r.created_at,
    updated_at: r.updated_at,
    test: r.test,
  };
}

/**
 * Create the deliveries of events being inserted in `tx` (which holds the project's head row):
 * one per active webhook that subscribes to the type, may see the event and was created before
 * it. Returns how many; a NOTIFY goes out with the commit when there are any.
 */
/** The active webhooks of project $1 (read by the statement that inserts a batch of events: EventCommitHooks.read). */
export const ACTIVE_WEBHOOKS_SQL = `SELECT ${HOOK_COLS} FROM ms_webhooks WHERE project_id = $1 AND active`;

export async function fanOutDeliveries(
  tx: SqlQueryable,
  projectId: string,
  events: readonly Pick<EventEntry, 'seq' | 'event_id' | 'type' | 'visible_to'>[],
  /** ACTIVE_WEBHOOKS_SQL's rows, read already in this transaction (under the head row's lock). */
  active?: readonly Record<string, unknown>[],
): Promise<number> {
  if (events.length === 0) return 0;
  const rows = active ?? (await tx.query<HookRow>(ACTIVE_WEBHOOKS_SQL, [projectId])).rows;
  const hooks = (rows as HookRow[]).map(hookOf);
  if (hooks.length === 0) return 0;
  const cols: unknown[][] = [[], [], [], [], []];
  const now = new Date().toISOString();
  for (const e of events) {
    for (const h of hooks) {
      if (e.seq <= h.from_seq || !matchesPatterns(e.type, h.events) || !visibleTo(e.visible_to, h.member_id)) continue;
      [uuidv7(), h.webhook_id, e.event_id, e.seq, e.type].forEach((v, k) => cols[k]!.push(v));
    }
  }
  if (cols[0]!.length === 0) return 0;
  await tx.query(
    `INSERT INTO ms_deliveries (delivery_id, project_id, webhook_id, event_id, event_seq, type, status, attempts, next_at_ms, created_at, updated_at, test)
     SELECT d, $1, w, e, s, t, 'PENDING', '[]'::json, ${DB_NOW_MS}, $7, $7, false FROM unnest($2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[]) AS u(d, w, e, s, t)
     ON CONFLICT (webhook_id, event_id) DO NOTHING`,
    [projectId, ...cols, now],
  );
  await tx.query(`SELECT pg_notify('${DELIVERY_CHANNEL}', $1)`, [projectId]);
  return cols[0]!.length;
}

export class PgWebhooks implements ProjectWebhooks {
  constructor(
    private readonly db: SqlClient,
    private readonly projectId: string,
    private readonly log: ProjectEventLog,
    private readonly dispatcher: PgWebhookDispatcher,
  ) {}

  async list(): Promise<Webhook[]> {
    const r = await this.db.query<HookRow>(`SELECT ${HOOK_COLS} FROM ms_webhooks WHERE project_id = $1 ORDER BY webhook_id`, [this.projectId]);
    return r.rows.map(hookOf);
  }

  async get(id: string): Promise<Webhook | undefined> {
    const r = await this.db.query<HookRow>(`SELECT ${HOOK_COLS} FROM ms_webhooks WHERE project_id = $1 AND webhook_id = $2`, [this.projectId, id]);
    return r.rows[0] ? hookOf(r.rows[0]) : undefined;
  }

  async create(input: WebhookInput): Promise<Webhook> {
    // Events this replica appended before the request are committed first, so they count as before.
    await this.log.flush();
    const now = new Date().toISOString();
    return this.db.transaction(async (tx) => {
      const head = await lockEventHead(tx, this.projectId);
      const r = await tx.query<HookRow>(
        `INSERT INTO ms_webhooks (project_id, ${HOOK_COLS}) VALUES ($1, $2, $3, $4::json, $5, $6, $7, $8, $9, $10, $10) RETURNING ${HOOK_COLS}`,
        [this.projectId, uuidv7(), input.url, JSON.stringify(input.events), input.description, input.active, input.secret, input.member_id, head, now],
      );
      return hookOf(r.rows[0]!);
    });
  }

  async update(id: string, patch: WebhookPatch): Promise<Webhook | undefined> {
    if (patch.active === true) await this.log.flush();
    return this.db.transaction(async (tx) => {
      // The head row first (as event writers take it), then the webhook: no lock-order deadlock.
      const head = patch.active === true ? await lockEventHead(tx, this.projectId) : null;
      const cur = await tx.query<HookRow>(`SELECT ${HOOK_COLS} FROM ms_webhooks WHERE project_id = $1 AND webhook_id = $2 FOR UPDATE`, [this.projectId, id]);
      if (!cur.rows[0]) return undefined;
      const next: Webhook = { ...hookOf(cur.rows[0]), ...patch, updated_at: new Date().toISOString() };
      // Events recorded while it was paused are not delivered later.
      if (head !== null && !cur.rows[0].active) next.from_seq = head;
      const r = await tx.query<HookRow>(
        `UPDATE ms_webhooks SET url = $3, events = $4::json, description = $5, active = $6, from_seq = $7, updated_at = $8
         WHERE project_id = $1 AND webhook_id = $2 RETURNING ${HOOK_COLS}`,
        [this.projectId, id, next.url, JSON.stringify(next.events), next.description, next.active, next.from_seq, next.updated_at],
      );
      return hookOf(r.rows[0]!);
    });
  }

  async remove(id: string): Promise<boolean> {
    // Its deliveries go with it (ON DELETE CASCADE); one in flight is recorded nowhere.
    const r = await this.db.query(`DELETE FROM ms_webhooks WHERE project_id = $1 AND webhook_id = $2 RETURNING webhook_id`, [this.projectId, id]);
    return r.rows.length > 0;
  }

  async deliveries(id: string): Promise<Delivery[]> {
    const r = await this.db.query<DeliveryRow>(`SELECT ${DELIVERY_COLS} FROM ms_deliveries WHERE project_id = $1 AND webhook_id = $2 ORDER BY delivery_id DESC`, [this.projectId, id]);
    return r.rows.map(deliveryOf);
  }

  test(hook: Webhook): Promise<Delivery> {
    return this.dispatcher.test(this.projectId, hook);
  }

  async close(): Promise<void> {
    // Deliveries belong to the server-wide dispatcher, which goes on sending them.
  }
}
