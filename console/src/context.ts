/**
 * What every view of the console reaches through one context: the API client, the session, the
 * operator's preferences, the current route and how to change it, and how to open a live
 * subscription. Created once by ./app.tsx; no module-level state.
 */
import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { ApiClient } from "./lib/api-client.js";
import type { OpenSocket, Timers } from "./lib/live-subscription.js";
import type { CursorTrail } from "./lib/paging.js";
import type { Route } from "./lib/route.js";
import type { Identity, Session } from "./lib/session.js";

export type Theme = "system" | "light" | "dark";

/** Kept in localStorage: they are not secrets (the token never is kept there). */
export interface Prefs {
  theme: Theme;
  /** Every time in UTC instead of local time. */
  utc: boolean;
}

export interface ConsoleContext {
  api: ApiClient;
  session: Session;
  identity: Identity;
  prefs: Prefs;
  setPrefs: (change: Partial<Prefs>) => void;
  route: Route;
  /** Shows `route`; `replace` rewrites the current history entry instead of adding one. */
  navigate: (route: Route, options?: { replace?: boolean }) => void;
  /** The tenant stream routes act in: an admin's choice, null for the caller's own. */
  tenant: string | null;
  /** ws(s):// URL of /v1/subscribe on the page's own origin. */
  subscribeUrl: string;
  openSocket: OpenSocket;
  timers: Timers;
  /** Where each list page came from, for "previous" on forward-only cursors; as long as the page lives. */
  trails: { streams: CursorTrail; all: CursorTrail };
  /** Says `message` to screen readers (a polite live region). */
  announce: (message: string) => void;
}

export const Context = createContext<ConsoleContext | null>(null);

export function useConsole(): ConsoleContext {
  const value = useContext(Context);
  if (value === null) throw new Error("useConsole outside the console's shell");
  return value;
}

export function canWrite(identity: Identity): boolean {
  return identity.role === "admin" || identity.role === "writer";
}

export function isAdmin(identity: Identity): boolean {
  return identity.role === "admin";
}
