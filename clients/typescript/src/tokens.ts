/** How the client signs in: an API client's key and secret, or a user with password access. */
export type Credentials = { apiClient: string; secret: string } | { tenantName: string; username: string; password: string };

export interface IssuedToken {
  token: string;
  /** When the server stops accepting it (ISO 8601). */
  expiresAt: string;
}

/**
 * The bearer token, fetched once and shared by every call until it nears its expiry (a token is
 * valid for an hour, and each request for one costs the server a scrypt check and counts toward
 * the 100-per-5-minutes limit). Concurrent calls wait on the same request for a new one.
 */
export class TokenSource {
  private current: { token: string; expiresAt: number } | undefined;
  private pending: Promise<string> | undefined;

  constructor(
    private readonly issue: () => Promise<IssuedToken>,
    private readonly options: { refreshBeforeExpiryMs: number; now: () => number },
  ) {}

  /**
   * A token valid for at least `refreshBeforeExpiryMs` more, fetching a new one if needed. When
   * an early renewal fails (the token limit, the server away), the current token serves until
   * it expires.
   */
  async get(): Promise<string> {
    const current = this.current;
    if (current && current.expiresAt - this.options.refreshBeforeExpiryMs > this.options.now()) return current.token;
    this.pending ??= this.issue()
      .then((issued) => {
        this.current = { token: issued.token, expiresAt: Date.parse(issued.expiresAt) };
        return issued.token;
      })
      .finally(() => {
        this.pending = undefined;
      });
    try {
      return await this.pending;
    } catch (error) {
      if (current && this.current === current && current.expiresAt > this.options.now()) return current.token;
      throw error;
    }
  }

  /** Forgets `token` after the server refused it (401), so the next `get` fetches another. */
  invalidate(token: string): void {
    if (this.current?.token === token) this.current = undefined;
  }
}
