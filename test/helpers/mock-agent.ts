// The undici MockAgent of the API-layer unit tests, set up the same way in every file: no real network, short
// keep-alive (so that idle sockets do not hold the test runner open), and a check after each test that every
// interceptor was used.
import { MockAgent } from 'undici';
import { afterEach, beforeEach } from 'vitest';
import { ApiClient } from '../../src/api/http.js';
import type { Pacer } from '../../src/api/pacing.js';

/** Registers the per-test set-up and returns the current test's agent. */
export function useMockAgent(opts: { allowPending?: () => boolean } = {}): () => MockAgent {
  let agent: MockAgent | undefined;
  beforeEach(() => {
    agent = new MockAgent({ keepAliveTimeout: 10, keepAliveMaxTimeout: 10 });
    agent.disableNetConnect();
  });
  afterEach(async () => {
    if (!opts.allowPending?.()) agent?.assertNoPendingInterceptors();
    await agent?.close();
  });
  return () => agent!;
}

/**
 * An API client whose requests go to `agent` (no real network) and that never waits between retries; with
 * `pacer`, one that paces its requests as on the hosted edition.
 */
export function mockClient(agent: MockAgent, baseUrl: string, authHeader: string, pacer?: Pacer): ApiClient {
  return new ApiClient({
    pacer,
    baseUrl,
    timeoutMs: 5000,
    env: {},
    dispatcher: agent,
    sleep: async () => {},
    auth: { header: async () => authHeader },
  });
}
