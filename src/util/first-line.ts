// The first line of a message: the one line an error shows. A credential store's messages nest their causes
// ("Platform failure: …" and more lines), a service's plain-text error answer can run to a page.

/**
 * The first line of `e`'s message (an Error's, or `e` itself as text), without the blank lines and spaces around
 * it; with `max`, a longer line cut to `max` characters and an ellipsis (never between the two halves of a
 * surrogate pair).
 *
 * Self-contained on purpose (no import, no name from outside the function): the credential-store helper's
 * worker, which is code in a string and cannot import, is given this function's own source
 * (src/config/keyring-child.ts).
 */
export function firstLine(e: unknown, max = Number.POSITIVE_INFINITY): string {
  const line = String((e as Error | null | undefined)?.message || e)
    .trim()
    .split(/\r?\n/, 1)[0]!
    .trim();
  if (line.length <= max) return line;
  const high = line.charCodeAt(max - 1);
  const end = high >= 0xd800 && high <= 0xdbff ? max - 1 : max;
  return `${line.slice(0, end)}…`;
}
