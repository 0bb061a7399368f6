/**
 * Who is logged in, and their bearer token: in this object's memory only. Nothing here, or
 * anywhere in the console, writes the token to localStorage, sessionStorage, a cookie or a URL,
 * so it is gone when the tab closes, and a script of another page cannot read it.
 *
 * Re-login: when a token is refused (a 401, a WebSocket closed with 4401) or reaches its expiry,
 * the session asks for a new login (`reloginRequested`; the shell shows its dialog over the
 * page, which keeps its state). Every caller waiting for a token gets the same answer: the new
 * token, or null if the operator gives up. A caller whose token was already replaced gets the
 * current one at once, so a burst of refused requests opens one dialog, not one each.
 */
import type { LoginResult, Role } from "./contract.js";

export interface Identity {
  username: string;
  role: Role;
  tenantId: string;
  /** When the token stops working, in ms since the epoch (local clock). */
  expiresAtMs: number;
}

type Listener = () => void;

export class Session {
  private token: string | null = null;
  private who: Identity | null = null;
  private waiting: ((token: string | null) => void)[] = [];
  private relogin = false;
  private readonly listeners = new Set<Listener>();

  get identity(): Identity | null {
    return this.who;
  }

  /** True while the shell should show the re-login dialog. */
  get reloginRequested(): boolean {
    return this.relogin;
  }

  currentToken(): string | null {
    return this.token;
  }

  /** A login answered: the new token replaces the old one and every waiting caller gets it. */
  loggedIn(username: string, result: LoginResult, nowMs: number): void {
    this.token = result.access_token;
    this.who = {
      username,
      role: result.role,
      tenantId: result.tenant_id,
      expiresAtMs: nowMs + result.expires_in * 1000,
    };
    this.relogin = false;
    this.settle(this.token);
  }

  /**
   * `refusedToken` was refused (null: a caller had none): a newer token when there is one,
   * otherwise the re-login dialog opens and the answer comes when it closes.
   */
  reauthenticate(refusedToken: string | null): Promise<string | null> {
    if (this.who === null) return Promise.resolve(null);
    if (this.token !== null && this.token !== refusedToken && !this.relogin) {
      return Promise.resolve(this.token);
    }
    return this.askForLogin();
  }

  /** The token's expiry passed (the shell's timer): log in again. */
  expired(): void {
    if (this.who !== null) void this.askForLogin();
  }

  /** The operator closed the re-login dialog without logging in: waiting callers fail. */
  giveUp(): void {
    this.relogin = false;
    this.settle(null);
  }

  /** Forgets the token and who it was for; waiting callers fail. */
  logout(): void {
    this.token = null;
    this.who = null;
    this.relogin = false;
    this.settle(null);
  }

  /** Calls `listener` on every change (login, re-login asked, logout); returns the unsubscribe. */
  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private askForLogin(): Promise<string | null> {
    const answer = new Promise<string | null>((resolve) => this.waiting.push(resolve));
    if (!this.relogin) {
      this.relogin = true;
      this.notify();
    }
    return answer;
  }

  private settle(token: string | null): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const resolve of waiting) resolve(token);
    this.notify();
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }
}
