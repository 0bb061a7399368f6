/**
 * The console's shell: login, the re-login dialog, the header (sections, tenant switch, UTC and
 * theme switches, help, logout), keyboard shortcuts, and the page the URL names.
 *
 * The session (../lib/session.ts) holds the token in memory; the shell re-renders when it
 * changes. Logging out reloads the page without its address, so nothing of the last operator's
 * work stays in memory or on screen.
 */
import type { JSX } from "preact";
import { useEffect, useId, useMemo, useRef, useState } from "preact/hooks";
import { ApiError, toApiError, type ApiClient } from "./lib/api-client.js";
import type { LoginResult, TenantList } from "./lib/contract.js";
import { formatZone } from "./lib/format.js";
import { CursorTrail, pageSizeDefault } from "./lib/paging.js";
import { parseRoute, routeHref, routeInTenant, type PageName, type Route } from "./lib/route.js";
import type { Session } from "./lib/session.js";
import { browserTimers, openBrowserSocket, subscribeUrl } from "./browser.js";
import { Dialog, ErrorNotice, PageTitle } from "./components.js";
import { Context, isAdmin, useConsole, type ConsoleContext, type Prefs, type Theme } from "./context.js";
import { AllEventsPage, AllLivePage } from "./views/all-events.js";
import { EventPage } from "./views/event.js";
import { OperationsPage } from "./views/operations.js";
import { StreamPage } from "./views/stream.js";
import { StreamsPage } from "./views/streams.js";
import { TenantPage, TenantsPage } from "./views/tenants.js";
import { UsersPage } from "./views/users.js";

const prefsKey = "ess-console-prefs";
/** setTimeout's longest delay; a longer token lifetime is checked again after it. */
const timerDelayMsMax = 2 ** 31 - 1;

function loadPrefs(): Prefs {
  const defaults: Prefs = { theme: "system", utc: false };
  try {
    const stored = JSON.parse(window.localStorage.getItem(prefsKey) ?? "{}") as Partial<Prefs>;
    const theme: Theme = stored.theme === "light" || stored.theme === "dark" ? stored.theme : "system";
    return { theme, utc: stored.utc === true };
  } catch {
    return defaults;
  }
}

function savePrefs(prefs: Prefs): void {
  try {
    window.localStorage.setItem(prefsKey, JSON.stringify(prefs));
  } catch {
    // Storage refused (private mode): the preferences last as long as the page.
  }
}

interface AppProps {
  session: Session;
  api: ApiClient;
  baseUrl: string;
}

export function App({ session, api, baseUrl }: AppProps): JSX.Element {
  const [, setSessionVersion] = useState(0);
  useEffect(() => session.subscribe(() => setSessionVersion((n) => n + 1)), [session]);

  const [prefs, setPrefsState] = useState<Prefs>(loadPrefs);
  useEffect(() => {
    const root = document.documentElement;
    if (prefs.theme === "system") delete root.dataset.theme;
    else root.dataset.theme = prefs.theme;
  }, [prefs.theme]);

  const [hash, setHash] = useState(window.location.hash);
  useEffect(() => {
    const onHashChange = () => setHash(window.location.hash);
    window.addEventListener("hashchange", onHashChange);
    return () => window.removeEventListener("hashchange", onHashChange);
  }, []);
  const route = useMemo(() => parseRoute(hash), [hash]);

  const [announcement, setAnnouncement] = useState("");
  const trails = useMemo(() => ({ streams: new CursorTrail(), all: new CursorTrail() }), []);
  const identity = session.identity;

  // An expired token opens the re-login dialog at once, not at the next refused request.
  useEffect(() => {
    if (identity === null) return undefined;
    let timer = 0;
    const arm = () => {
      const delay = identity.expiresAtMs - Date.now();
      timer = window.setTimeout(
        () => (delay > timerDelayMsMax ? arm() : session.expired()),
        Math.max(0, Math.min(delay, timerDelayMsMax)),
      );
    };
    arm();
    return () => window.clearTimeout(timer);
  }, [identity, session]);

  const context = useMemo<ConsoleContext | null>(() => {
    if (identity === null) return null;
    // An admin's own tenant named in the URL is the same as none.
    const tenant = isAdmin(identity) && route.tenant !== identity.tenantId ? route.tenant : null;
    return {
      api,
      session,
      identity,
      prefs,
      setPrefs: (change) =>
        setPrefsState((previous) => {
          const next = { ...previous, ...change };
          savePrefs(next);
          return next;
        }),
      route,
      navigate: (next, options = {}) => {
        const href = routeHref(next);
        if (options.replace) {
          window.history.replaceState(null, "", href);
          setHash(href);
        } else {
          window.location.hash = href;
        }
      },
      tenant,
      trails,
      subscribeUrl: subscribeUrl(baseUrl),
      openSocket: openBrowserSocket,
      timers: browserTimers,
      announce: (message) => {
        // Cleared first so that the same message twice is said twice.
        setAnnouncement("");
        window.setTimeout(() => setAnnouncement(message), 50);
      },
    };
  }, [api, session, identity, prefs, route, baseUrl, trails]);

  return (
    <>
      {context === null ? (
        <LoginPage api={api} session={session} />
      ) : (
        <Context.Provider value={context}>
          <Shell />
          {session.reloginRequested ? <ReloginDialog /> : null}
        </Context.Provider>
      )}
      <div class="offscreen" aria-live="polite" role="status">
        {announcement}
      </div>
    </>
  );
}

async function logIn(api: ApiClient, session: Session, username: string, password: string): Promise<void> {
  const answer = await api.request<LoginResult>("POST", "v1/auth/login", {
    body: { username, password },
    authenticated: false,
  });
  session.loggedIn(username, answer.body, Date.now());
}

function LoginForm({
  api,
  session,
  username: initialUsername,
  submitLabel,
  onCancel,
}: {
  api: ApiClient;
  session: Session;
  username: string;
  submitLabel: string;
  onCancel?: () => void;
}): JSX.Element {
  const [username, setUsername] = useState(initialUsername);
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const userId = useId();
  const passwordId = useId();
  const passwordRef = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (initialUsername !== "") passwordRef.current?.focus();
  }, [initialUsername]);
  return (
    <form
      class="login-form"
      onSubmit={(event) => {
        event.preventDefault();
        setBusy(true);
        setError(null);
        logIn(api, session, username.trim(), password).then(
          () => setPassword(""),
          (failure: unknown) => {
            setBusy(false);
            setPassword("");
            const apiError = toApiError(failure);
            setError(
              apiError.code === "UNAUTHENTICATED"
                ? new ApiError(apiError.code, "the username or password is not right", apiError.status)
                : apiError,
            );
          },
        );
      }}
    >
      <label for={userId}>Username</label>
      <input
        id={userId}
        name="username"
        autoComplete="username"
        required
        value={username}
        onInput={(event) => setUsername(event.currentTarget.value)}
      />
      <label for={passwordId}>Password</label>
      <input
        id={passwordId}
        ref={passwordRef}
        name="password"
        type="password"
        autoComplete="current-password"
        required
        value={password}
        onInput={(event) => setPassword(event.currentTarget.value)}
      />
      <ErrorNotice error={error} action="Login failed" />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? "Logging in…" : submitLabel}
        </button>
        {onCancel ? (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        ) : null}
      </div>
    </form>
  );
}

function LoginPage({ api, session }: { api: ApiClient; session: Session }): JSX.Element {
  useEffect(() => {
    document.title = "Log in · ess console";
  }, []);
  return (
    <main class="login-page">
      <div class="login-card">
        <h1>ess console</h1>
        <p class="muted">Log in with an ess user. The token stays in this page's memory only.</p>
        <LoginForm api={api} session={session} username="" submitLabel="Log in" />
      </div>
    </main>
  );
}

function ReloginDialog(): JSX.Element {
  const { api, session, identity } = useConsole();
  return (
    <Dialog title="Log in again" onClose={() => session.giveUp()}>
      <p>
        The session's token expired or was refused. Log in again to go on: this page stays as it is, and what
        was waiting is sent again.
      </p>
      <LoginForm
        api={api}
        session={session}
        username={identity.username}
        submitLabel="Log in"
        onCancel={() => session.giveUp()}
      />
    </Dialog>
  );
}

const sections: { page: PageName; label: string; key: string; admin: boolean }[] = [
  { page: "streams", label: "Streams", key: "s", admin: false },
  { page: "all", label: "All events", key: "a", admin: false },
  { page: "operations", label: "Operations", key: "o", admin: true },
  { page: "tenants", label: "Tenants", key: "t", admin: true },
  { page: "users", label: "Users", key: "u", admin: true },
];

function sectionRoute(page: PageName, tenant: string | null): Route {
  switch (page) {
    case "all":
      return { page: "all", from: 0, limit: pageSizeDefault, tenant };
    case "operations":
    case "tenants":
    case "users":
      return { page, tenant };
    default:
      return { page: "streams", prefix: "", cursor: null, limit: pageSizeDefault, tenant };
  }
}

function sectionOf(route: Route): PageName {
  switch (route.page) {
    case "stream":
    case "event":
    case "live":
    case "info":
      return "streams";
    case "all-live":
      return "all";
    case "tenant":
      return "tenants";
    default:
      return route.page;
  }
}

function Shell(): JSX.Element {
  const context = useConsole();
  const { route, identity, navigate, tenant } = context;
  const [helpOpen, setHelpOpen] = useState(false);
  useKeyboardShortcuts(() => setHelpOpen(true));
  useFocusOnPageChange(route);
  const current = sectionOf(route);
  return (
    <>
      <header class="topbar">
        <div class="brand">
          <span class="brand-name">ess</span> console
        </div>
        <nav aria-label="Sections">
          <ul>
            {sections.map((section) => (
              <li key={section.page}>
                {section.admin && !isAdmin(identity) ? (
                  <span class="nav-disabled" aria-disabled="true" title="needs role admin">
                    {section.label}
                  </span>
                ) : (
                  <a
                    href={routeHref(sectionRoute(section.page, tenant))}
                    aria-current={current === section.page ? "page" : undefined}
                  >
                    {section.label}
                  </a>
                )}
              </li>
            ))}
          </ul>
        </nav>
        <div class="toolbar">
          {isAdmin(identity) ? (
            <TenantSwitch current={tenant} onSwitch={(next) => navigate(routeInTenant(route, next))} />
          ) : null}
          <Preferences />
          <button
            type="button"
            onClick={() => setHelpOpen(true)}
            aria-label="Keyboard shortcuts"
            title="Keyboard shortcuts (?)"
          >
            ?
          </button>
          <span class="who" title={`tenant ${identity.tenantId}, role ${identity.role}`}>
            {identity.username} <span class="badge">{identity.role}</span>
          </span>
          <button
            type="button"
            onClick={() => {
              context.session.logout();
              window.location.replace(window.location.pathname + window.location.search);
            }}
          >
            Log out
          </button>
        </div>
      </header>
      {tenant !== null ? (
        <div class="tenant-banner" role="note">
          Acting in tenant <strong>{tenant}</strong> (your own is {identity.tenantId}).{" "}
          <button type="button" class="link" onClick={() => navigate(routeInTenant(route, null))}>
            Back to {identity.tenantId}
          </button>
        </div>
      ) : null}
      <main id="main">
        <RouteView route={route} />
      </main>
      {helpOpen ? <HelpDialog onClose={() => setHelpOpen(false)} /> : null}
    </>
  );
}

function TenantSwitch({
  current,
  onSwitch,
}: {
  current: string | null;
  onSwitch: (tenant: string | null) => void;
}) {
  const { api, identity } = useConsole();
  const [draft, setDraft] = useState(current ?? "");
  const [known, setKnown] = useState<string[]>([]);
  const inputId = useId();
  const listId = useId();
  useEffect(() => setDraft(current ?? ""), [current]);
  useEffect(() => {
    api.get<TenantList>("v1/admin/tenants", { limit: 1000 }).then(
      (list) => setKnown(list.tenants.map((t) => t.tenant_id)),
      () => setKnown([]),
    );
  }, [api]);
  return (
    <form
      class="tenant-switch"
      onSubmit={(event) => {
        event.preventDefault();
        const next = draft.trim();
        onSwitch(next === "" || next === identity.tenantId ? null : next);
      }}
    >
      <label for={inputId}>Tenant</label>
      <input
        id={inputId}
        list={listId}
        size={12}
        placeholder={identity.tenantId}
        value={draft}
        onInput={(event) => setDraft(event.currentTarget.value)}
      />
      <datalist id={listId}>
        {known.map((tenantId) => (
          <option key={tenantId} value={tenantId} />
        ))}
      </datalist>
      <button type="submit">Switch</button>
    </form>
  );
}

function Preferences(): JSX.Element {
  const { prefs, setPrefs } = useConsole();
  const themeId = useId();
  const utcId = useId();
  return (
    <div class="prefs">
      <span class="pref">
        <input
          id={utcId}
          type="checkbox"
          checked={prefs.utc}
          onChange={(event) => setPrefs({ utc: event.currentTarget.checked })}
        />
        <label for={utcId} title={`Local time is ${formatZone(new Date())}`}>
          UTC
        </label>
      </span>
      <label for={themeId}>Theme</label>
      <select
        id={themeId}
        value={prefs.theme}
        onChange={(event) => setPrefs({ theme: event.currentTarget.value as Theme })}
      >
        <option value="system">System</option>
        <option value="light">Light</option>
        <option value="dark">Dark</option>
      </select>
    </div>
  );
}

function NeedsAdmin(): JSX.Element {
  return (
    <section>
      <PageTitle>Needs role admin</PageTitle>
      <p>This page is for admins. Your role can browse and watch the streams of your tenant.</p>
    </section>
  );
}

function RouteView({ route }: { route: Route }): JSX.Element {
  const { identity } = useConsole();
  const adminOnly =
    route.page === "operations" ||
    route.page === "tenants" ||
    route.page === "tenant" ||
    route.page === "users";
  if (adminOnly && !isAdmin(identity)) return <NeedsAdmin />;
  const tenantKey = route.tenant ?? "";
  switch (route.page) {
    case "streams":
      return <StreamsPage key={tenantKey} route={route} />;
    case "stream":
    case "live":
    case "info":
      return <StreamPage key={`${tenantKey}/${route.streamId}`} route={route} />;
    case "event":
      return <EventPage key={`${tenantKey}/${route.streamId}`} route={route} />;
    case "all":
      return <AllEventsPage key={tenantKey} route={route} />;
    case "all-live":
      return <AllLivePage key={tenantKey} />;
    case "operations":
      return <OperationsPage />;
    case "tenants":
      return <TenantsPage />;
    case "tenant":
      return <TenantPage key={route.tenantId} tenantId={route.tenantId} />;
    case "users":
      return <UsersPage />;
    case "not-found":
      return (
        <section>
          <PageTitle>No such page</PageTitle>
          <p>
            The console has no page at <code>{route.path}</code>.{" "}
            <a href={routeHref(sectionRoute("streams", route.tenant))}>Go to the streams</a>.
          </p>
        </section>
      );
  }
}

/** Moves focus to the new page's heading when the page (not just its paging) changes. */
function useFocusOnPageChange(route: Route): void {
  const key = route.page + ("streamId" in route ? `/${route.streamId}` : "");
  const previous = useRef<string | null>(null);
  useEffect(() => {
    if (previous.current !== null && previous.current !== key) {
      window.requestAnimationFrame(() => document.getElementById("page-title")?.focus());
    }
    previous.current = key;
  }, [key]);
}

const shortcuts: [string, string][] = [
  ["?", "this help"],
  ["/", "go to the page's filter or search field"],
  ["g then s", "streams"],
  ["g then a", "all events"],
  ["g then o / t / u", "operations, tenants, users (admins)"],
  ["[ and ]", "older and newer page; previous and next event"],
  ["p", "pause or resume a live tail"],
  ["Esc", "close a dialog or an open event"],
];

/** "g then s" → <kbd>g</kbd> then <kbd>s</kbd>: keys in boxes, the words between them plain. */
function Keys({ text }: { text: string }): JSX.Element {
  const words = new Set(["then", "and", "/"]);
  return (
    <span class="keys">
      {text
        .split(" ")
        .map((part, index) =>
          words.has(part) && index > 0 ? <span key={index}> {part} </span> : <kbd key={index}>{part}</kbd>,
        )}
    </span>
  );
}

function HelpDialog({ onClose }: { onClose: () => void }): JSX.Element {
  return (
    <Dialog title="Keyboard shortcuts" onClose={onClose}>
      <table class="shortcuts">
        <caption class="offscreen">Keyboard shortcuts</caption>
        <thead>
          <tr>
            <th scope="col">Keys</th>
            <th scope="col">Does</th>
          </tr>
        </thead>
        <tbody>
          {shortcuts.map(([keys, does]) => (
            <tr key={keys}>
              <td>
                <Keys text={keys} />
              </td>
              <td>{does}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p class="muted">Shortcuts do nothing while you type in a field. Every action also has a button.</p>
      <div class="actions">
        <button type="button" class="primary" onClick={onClose}>
          Close
        </button>
      </div>
    </Dialog>
  );
}

function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName);
}

/** Clicks the enabled element marked `data-shortcut=name`, if the page has one. */
function clickShortcut(name: string): boolean {
  const element = document.querySelector<HTMLElement>(`[data-shortcut="${name}"]:not([disabled])`);
  if (element === null) return false;
  if (element instanceof HTMLInputElement) element.focus();
  else element.click();
  return true;
}

function useKeyboardShortcuts(openHelp: () => void): void {
  const { navigate, tenant, identity } = useConsole();
  const pendingG = useRef(false);
  const latest = useRef({ navigate, tenant, identity, openHelp });
  latest.current = { navigate, tenant, identity, openHelp };
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) return;
      if (isTyping(event.target) || document.querySelector("dialog[open]") !== null) return;
      const { navigate: go, tenant: inTenant, identity: who, openHelp: help } = latest.current;
      if (pendingG.current) {
        pendingG.current = false;
        const section = sections.find((s) => s.key === event.key);
        if (section && (!section.admin || isAdmin(who))) {
          event.preventDefault();
          go(sectionRoute(section.page, inTenant));
        }
        return;
      }
      let handled = true;
      switch (event.key) {
        case "?":
          help();
          break;
        case "g":
          pendingG.current = true;
          window.setTimeout(() => (pendingG.current = false), 1500);
          break;
        case "/":
          handled = clickShortcut("filter");
          break;
        case "[":
          handled = clickShortcut("older");
          break;
        case "]":
          handled = clickShortcut("newer");
          break;
        case "p":
          handled = clickShortcut("pause");
          break;
        default:
          handled = false;
      }
      if (handled) event.preventDefault();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);
}
