// What every area module of the emulator is given (AreaContext), and the options it reads: apart from
// server.ts, which starts the areas, so that the areas and the server do not import each other.
import type { CloudOptions } from './cloud.js';
import type { FaultSpec } from './faults.js';
import type { FlightEncoding } from './flight/encoding.js';
import type { FlightFaultSpec } from './flight/faults.js';
import type { Router } from './http.js';
import type { FloatText } from './sql-engine.js';
import type { EmuState, SeedUser } from './state.js';

export interface EmulatorOptions {
  port?: number;
  host?: string;
  /**
   * `community` answers the Enterprise endpoints (users, PATs, queues, OAuth) as that edition would; `cloud`
   * serves the hosted edition's roots and shapes instead of the self-hosted ones (src/cloud.ts).
   */
  edition?: 'enterprise' | 'community' | 'cloud';
  /** The hosted edition's project, limits and their window (with `edition: 'cloud'`). */
  cloud?: CloudOptions;
  users?: SeedUser[];
  /** Whether personal access tokens are enabled (default true). */
  patsEnabled?: boolean;
  /** PEM public key (SPKI) that external JWTs are verified against (RS256/ES256). */
  jwtPublicKeyPem?: string;
  /** Serve HTTPS with this key and certificate (PEM). */
  tls?: { key: string; cert: string };
  /** Folder served by a NAS source named `Samples` at start (optional). */
  samplesDir?: string;
  /** Rows of the generated table `big` (default 1000). */
  bigRows?: number;
  /** Time a job spends in each of its non-final states, in ms (default 20). */
  jobStepMs?: number;
  /** Faults armed from the start (`dlake-emulator --fault`); tests arm theirs with `emu.fault`. */
  faults?: FaultSpec[];
  /**
   * What source configs show instead of a stored secret, and what keeps it on update (default the spec's
   * `$SERVICE_EXISTING_VALUE$`; real servers use other texts).
   */
  secretPlaceholder?: string;
  /** Serve only the spec's endpoints: those the spec does not have (e.g. `GET /api/v3/info`) answer 404. */
  strictSpec?: boolean;
  /** Serve Arrow Flight on this port too (0: a free one); with `tls`, over TLS. Default: no Flight. */
  flightPort?: number;
  /** Flight faults armed from the start (`dlake-emulator --flight-fault`). */
  flightFaults?: FlightFaultSpec[];
  /** Rows of each Flight batch: the service's 4,095 by default, 1 to 65,536 (`--flight-batch-rows`). */
  flightBatchRows?: number;
  /** The Arrow encoding of each type over Flight: the service's vectors by default (`--flight-encoding`). */
  flightEncoding?: Partial<FlightEncoding>;
  /**
   * How REST results print FLOAT and DOUBLE (emulator/src/sql-engine.ts FloatText): `java` (the default) as the
   * service does, `javascript` as a JavaScript number prints (`--rest-floats`).
   */
  restFloats?: FloatText;
  /**
   * Which catalog search a self-hosted emulator has (emulator/src/search.ts): `unified` (Enterprise 26.x: `POST
   * /api/v3/search` and `GET /api/v3/catalog/search`) or `catalog` (the latter only). Default: `catalog` on the
   * community edition, else `unified`; the hosted edition has its own form whatever this says.
   */
  search?: 'unified' | 'catalog';
  /**
   * How long the job store keeps a job after it ended, in ms (the service's `jobs.max.age_in_days`, default 30
   * days, docs/api-facts.md §15 "Retention"): older jobs answer 404 by id and stay in the history tables only.
   */
  jobRetentionMs?: number;
  /** Jobs in the seeded history of the system tables (emulator/src/job-history.ts; default 200). */
  jobHistory?: number;
  /** false: an older server without `sys.jobs_recent`, whose `sys.jobs` holds every recent job. */
  jobsRecent?: boolean;
}

/**
 * Everything an area module needs to register its routes. What one area offers another (the catalog's
 * datasets to the jobs area) is not here: each `register…` returns its typed face, and `startEmulator`
 * hands it to the areas that need it.
 */
export interface AreaContext {
  router: Router;
  state: EmuState;
  options: EmulatorOptions;
  /** Registers a hook run on close (e.g. to shut DuckDB down). */
  onClose(fn: () => Promise<void> | void): void;
}
