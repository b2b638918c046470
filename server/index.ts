/** Public surface of the multi-tenant server. */
export { createServer } from './app.js';
export type { ServerOptions, MemoryServer } from './app.js';
export { TenancyStore } from './tenancy.js';
export { keyJson, hashKey, ROLES, KEY_PERMISSIONS } from './tenancy-records.js';
export type { Org, Project, Member, ApiKeyRecord, Role, KeyPermission } from './tenancy-records.js';
export { ROLE_CAP, effectivePermissions } from './access.js';
export { DataDirLockedError } from './data-lock.js';
export { EVENT_TYPES } from './event-types.js';
export type { EventType, EventJson } from './event-types.js';
export { signPayload, verifySignature, SIGNATURE_HEADER, TIMESTAMP_HEADER, DELIVERY_HEADER, EVENT_HEADER } from './webhook-signature.js';
export { isBlockedAddress } from './webhook-target.js';
export { EventLog } from './event-log.js';
export { openTenancyStore } from './pg-backend.js';
export { PgTenancyStore } from './pg-tenancy.js';
export { migrateServer } from './pg-state.js';
