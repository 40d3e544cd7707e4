// The emulator's public entry: start one in-process, inspect its state and request log, arm faults.
// dlake's own tests, demo and benchmarks import only from here (`import { startEmulator } from 'dlake-emulator'`).
export { ADMIN_ROLE_ID, type AdminArea, type EmuQueue, PUBLIC_ROLE_ID, type QueueStore } from './admin.js';
export type { EmulatorOptions } from './area.js';
export type { CatalogArea } from './catalog.js';
export type { CatalogDataset, CatalogNode, CatalogStore, NsEntity } from './catalog-store.js';
export {
  CloudEdition,
  type CloudOptions,
  DEFAULT_PROJECT_ID,
  type EmuEngine,
  PUBLISHED_LIMITS,
} from './cloud.js';
export { type FaultKind, type FaultSpec, Faults } from './faults.js';
export type { FlightFaultKind, FlightFaultSpec } from './flight/faults.js';
export type { FlightCall, FlightServer } from './flight/server.js';
export type { JobInfo, JobState, JobsArea, JobsCatalog, JobsTestApi, RunEngineQuery } from './jobs.js';
export { RequestLog, type RequestLogEntry } from './log.js';
export { type Emulator, startEmulator } from './server.js';
export { DEFAULT_USERS, type EmuState, type EmuUser, type IssuedToken, type SeedUser } from './state.js';
