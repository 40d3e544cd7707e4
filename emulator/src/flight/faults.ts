// The faults the Flight endpoint can be armed with (tests, `dlake-emulator --flight-fault`): types only, so that
// the options of the emulator name them without importing the Flight server.

export type FlightFaultKind =
  /** Every call is refused as unauthenticated. */
  | 'refuse-auth'
  /** GetFlightInfo and DoGet answer UNAVAILABLE (the endpoint is down). */
  | 'unavailable'
  /** DoGet stops with UNAVAILABLE after `afterBatches` batches (a connection lost mid-stream). */
  | 'break'
  /** DoGet stops with INTERNAL after `afterBatches` batches (a query failing mid-stream). */
  | 'fail'
  /** DoGet waits `latencyMs` before each batch after the first `afterBatches` (default 0), or until the call is cancelled (a slow service: time to interrupt a stream). */
  | 'slow';

export interface FlightFaultSpec {
  kind: FlightFaultKind;
  afterBatches?: number;
  latencyMs?: number;
  /** How many calls it hits (default: all). */
  times?: number;
}
