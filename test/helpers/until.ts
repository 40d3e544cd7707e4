// Waiting in a test for a running process to reach a chosen point (a line on stderr, a request in the
// emulator's log) before acting on it.

/** Polls `condition` every 10 ms until it holds (or fails the test after `timeoutMs`). */
export async function until(condition: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
