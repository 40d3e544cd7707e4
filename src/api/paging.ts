// The page tokens of one listing. A server that hands out a token it handed out before would have the
// listing go round for ever (or print its rows twice): that is an answer that breaks the contract, exit 7,
// in every listing (docs/cli-contract.md "Real servers").
import { ServiceError } from '../errors.js';

export class PageTokens {
  private readonly seen = new Set<string>();

  /** `listing`: what the error names, e.g. `GET /api/v3/user`. */
  constructor(private readonly listing: string) {}

  /** The token to ask the next page with, or undefined at the end (none, or an empty one). */
  next(token: unknown): string | undefined {
    if (typeof token !== 'string' || token === '') return undefined;
    if (this.seen.has(token)) {
      throw new ServiceError(
        `the service sent the same nextPageToken twice while listing ${this.listing}: the listing would never end`,
      );
    }
    this.seen.add(token);
    return token;
  }
}
