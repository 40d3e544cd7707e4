// The page tokens of one listing (docs/cli-contract.md "Real servers"). A listing ends on a page without a token
// or on an empty page, whatever its token says. A server that hands out a token it handed out before (the same
// one again, or a cycle) would have the listing go round for ever, or print its rows twice; one that sends the
// same page again under a fresh token (it ignores the token) would too: both are answers that break the
// contract, exit 7, in every listing (search included).
import { ServiceError } from '../errors.js';

export class PageTokens {
  private readonly seen = new Set<string>();
  private previous?: string;

  /** `listing`: what the error names, e.g. `GET /api/v3/user`. */
  constructor(private readonly listing: string) {}

  /**
   * The token to ask the next page with, or undefined at the end (none, an empty one, or an empty page).
   * `items`: the page's entries. Entries of a listing are distinct entities (each has its id), so a page equal to
   * the one before is the server repeating itself.
   */
  next(token: unknown, items: readonly unknown[]): string | undefined {
    if (items.length === 0) return undefined;
    const more = typeof token === 'string' && token !== '';
    if (more && this.seen.has(token)) {
      throw new ServiceError(
        `the service sent the same nextPageToken twice while listing ${this.listing}: the listing would never end`,
      );
    }
    const page = pageText(items);
    if (page !== undefined && page === this.previous) {
      throw new ServiceError(
        `the service sent the same page twice while listing ${this.listing}: the listing would never end`,
      );
    }
    this.previous = page;
    if (!more) return undefined;
    this.seen.add(token);
    return token;
  }
}

/** A page's entries as text to compare; one too deep to write (a hostile answer) compares as no other. */
function pageText(items: readonly unknown[]): string | undefined {
  try {
    return JSON.stringify(items);
  } catch {
    return undefined;
  }
}
