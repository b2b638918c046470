/** Public surface of the multi-tenant server. */
export { createServer } from './app.js';
export type { ServerOptions, MemoryServer } from './app.js';
export { TenancyStore, keyJson, hashKey, ROLES, KEY_PERMISSIONS } from './tenancy.js';
export type { Org, Project, Member, ApiKeyRecord, Role, KeyPermission } from './tenancy.js';
