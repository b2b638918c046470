/** Public surface of the dashboard (the CLI's `service` / `service tui` runs it). */
export { runDashboard } from './run.js';
export type { DashboardOptions } from './run.js';
export type { DashboardClient } from './dashboard-state.js';
export { quietProcess } from './quiet-process.js';
