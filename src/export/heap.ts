// Keeps an export's memory flat. An export keeps little alive (about 12 MB: the pages in flight), but V8
// lets the heap grow to ~100 MB of garbage before it compacts, so the peak grew with the row count (162 MiB
// at 1M rows against 88 MiB at 10k, bench/export.ts). A full collection every few dozen pages holds the
// peak near where it starts (113 MiB at 1M rows), at a price in speed the README reports. V8's heap limits
// cannot change once Node has started (setFlagsFromString has no effect on them, measured), and the bin
// shim must not start a second node process with other flags.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let gc: (() => void) | undefined;

export function collectGarbage(): void {
  if (!gc) {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  gc();
}
