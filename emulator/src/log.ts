// The request log: what the tests assert on. It records how a request authenticated, never the secret.

export interface RequestLogEntry {
  seq: number;
  method: string;
  path: string;
  query: Record<string, string>;
  /** The Authorization header's form: `_service<token>`, `Bearer <token>`, something else, or none. */
  authScheme: 'none' | '_service' | 'Bearer' | 'other';
  /** The authenticated user, when the token was valid. */
  user?: string;
  tokenKind?: 'session' | 'pat' | 'oauth';
  status: number;
  /** Token endpoint requests: the `grant_type` and `client_id` sent (never a secret or a token). */
  grant?: string;
  clientId?: string;
  /** The fault injected into this request, if any. */
  fault?: string;
  /** The client closed the connection before the answer was sent (it gave the request up). */
  abandoned?: boolean;
}

export class RequestLog {
  readonly entries: RequestLogEntry[] = [];

  add(e: RequestLogEntry): void {
    this.entries.push(e);
  }

  clear(): void {
    this.entries.length = 0;
  }

  /** Entries whose method and path match (`path` a prefix string or a RegExp). */
  find(method: string, path: string | RegExp): RequestLogEntry[] {
    return this.entries.filter(
      (e) => e.method === method && (typeof path === 'string' ? e.path.startsWith(path) : path.test(e.path)),
    );
  }
}
