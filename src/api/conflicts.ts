// One place for the service's 409s: a write that carried a tag or version and found the object changed since it
// was read (a stale tag), and a name that another object already has. The service's own texts for these vary by
// object and edition (docs/api-facts.md §5.5, §7.2, §9.1), so dlake reads the object again and says what
// happened in one way: which tag is current.
import { ConflictError, type Hint, UsageError } from '../errors.js';

interface StaleTagWording {
  /** A message of our own; the service's text is then kept for -v. Default: the service's message. */
  message?: string;
  hint?: Hint;
}

/**
 * A 409 on a write that carried `sent`: the object is read again and, when its tag has moved on, the error is
 * said again with the current tag (`say`). A 409 for another reason (a name or path that exists), a write that
 * carried no tag, or an object that can no longer be read, passes through unchanged.
 */
export async function explainStaleTag<T extends { tag?: string }>(
  err: unknown,
  sent: unknown,
  readCurrent: () => Promise<T>,
  say: (current: T & { tag: string }) => StaleTagWording,
): Promise<unknown> {
  if (!(err instanceof ConflictError) || sent === undefined || sent === null) return err;
  const current = await readCurrent().catch(() => undefined);
  if (!current || current.tag === undefined || current.tag === String(sent)) return err;
  const w = say(current as T & { tag: string });
  return new ConflictError(w.message ?? err.message, {
    hint: w.hint,
    details: w.message ? undefined : err.details,
    moreInfo: w.message ? err.message : err.moreInfo,
    cause: w.message ? undefined : err,
  });
}

/** A name another object has: a 409, or on some servers a 400 "… already exists" (the open-source edition). */
export function nameTaken(err: unknown, message: string): unknown {
  const duplicate =
    err instanceof ConflictError || (err instanceof UsageError && /already exists/i.test(err.message));
  return duplicate ? new ConflictError(message, { moreInfo: (err as Error).message }) : err;
}
