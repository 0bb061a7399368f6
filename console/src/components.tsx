/**
 * Small parts every view uses: times, errors, dialogs, typed confirmation, copy buttons, the
 * loading hook. Errors are always shown as their code and message (../lib/api-client.ts makes
 * sure there is one), never as a stack or a raw object.
 */
import type { ComponentChildren, JSX } from "preact";
import { useCallback, useEffect, useId, useRef, useState } from "preact/hooks";
import { toApiError, type ApiError } from "./lib/api-client.js";
import { formatTime, timeTooltip } from "./lib/format.js";
import { pageSizes } from "./lib/paging.js";
import { routeHref, type Route } from "./lib/route.js";
import { useConsole } from "./context.js";

/** A time of the contract, local or UTC (the operator's switch), the other clock on hover. */
export function Time({ iso }: { iso: string | null | undefined }): JSX.Element {
  const { prefs } = useConsole();
  if (!iso) return <span class="muted">–</span>;
  return (
    <time dateTime={iso} title={timeTooltip(iso, prefs.utc)}>
      {formatTime(iso, prefs.utc)}
    </time>
  );
}

export function ErrorNotice({
  error,
  action,
}: {
  error: ApiError | null;
  action?: string;
}): JSX.Element | null {
  if (error === null) return null;
  return (
    <div class="notice notice-error" role="alert">
      {action ? <span>{action}: </span> : null}
      <code class="error-code">{error.code}</code> <span>{error.message}</span>
    </div>
  );
}

export function Loading({ what }: { what?: string }): JSX.Element {
  return (
    <p class="muted" role="status">
      Loading{what ? ` ${what}` : ""}…
    </p>
  );
}

export function Link({
  route,
  children,
  class: className,
  "aria-current": current,
}: {
  route: Route;
  children: ComponentChildren;
  class?: string;
  "aria-current"?: "page";
}): JSX.Element {
  return (
    <a href={routeHref(route)} class={className} aria-current={current}>
      {children}
    </a>
  );
}

/** The page's heading; navigation moves focus to it (tabIndex -1) so keyboard users start there. */
export function PageTitle({ children }: { children: ComponentChildren }): JSX.Element {
  return (
    <h1 id="page-title" tabIndex={-1}>
      {children}
    </h1>
  );
}

/** Label/value pairs. */
/** The "Per page" choice of the paged views: its label and its select, one page size each. */
export function PageSizeSelect({
  value,
  onChange,
}: {
  value: number;
  onChange: (size: number) => void;
}): JSX.Element {
  const id = useId();
  return (
    <>
      <label for={id}>Per page</label>
      <select id={id} value={String(value)} onChange={(event) => onChange(Number(event.currentTarget.value))}>
        {pageSizes.map((size) => (
          <option key={size} value={String(size)}>
            {size}
          </option>
        ))}
      </select>
    </>
  );
}

export function Fields({ rows }: { rows: [string, ComponentChildren][] }): JSX.Element {
  return (
    <dl class="fields">
      {rows.map(([label, value]) => (
        <div class="field" key={label}>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

export interface Loaded<T> {
  data: T | null;
  error: ApiError | null;
  loading: boolean;
  reload: () => void;
}

/**
 * Runs `load` when `deps` change (and on reload()); only the latest call's answer is kept, so a
 * slow answer to an old request never overwrites a newer one.
 */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data: T | null; error: ApiError | null; loading: boolean }>({
    data: null,
    error: null,
    loading: true,
  });
  const [round, setRound] = useState(0);
  const latest = useRef(0);
  useEffect(() => {
    const call = ++latest.current;
    setState((previous) => ({ ...previous, loading: true }));
    load().then(
      (data) => {
        if (call === latest.current) setState({ data, error: null, loading: false });
      },
      (error: unknown) => {
        if (call === latest.current) setState({ data: null, error: toApiError(error), loading: false });
      },
    );
    // The caller names what `load` depends on, as with useEffect.
  }, [...deps, round]);
  const reload = useCallback(() => setRound((n) => n + 1), []);
  return { ...state, reload };
}

/**
 * A modal dialog on the native <dialog>: focus moves into it and stays there, Escape closes it,
 * the page behind is inert, and focus goes back where it was when it closes.
 */
export function Dialog({
  title,
  onClose,
  children,
  class: className,
}: {
  title: string;
  onClose: () => void;
  children: ComponentChildren;
  class?: string;
}): JSX.Element {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (dialog && !dialog.open) dialog.showModal();
    return () => {
      dialog?.close();
      opener?.focus();
    };
  }, []);
  return (
    <dialog
      ref={ref}
      class={className ? `dialog ${className}` : "dialog"}
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
    >
      <h2 id={titleId}>{title}</h2>
      {children}
    </dialog>
  );
}

/**
 * Confirmation of something that cannot be undone: the action's button works only once the
 * operator has typed `word` (a stream id, "scavenge", a username).
 */
export function TypedConfirm({
  title,
  word,
  description,
  actionLabel,
  onConfirm,
  onClose,
  busy,
  error,
}: {
  title: string;
  word: string;
  description: ComponentChildren;
  actionLabel: string;
  onConfirm: () => void;
  onClose: () => void;
  busy: boolean;
  error: ApiError | null;
}): JSX.Element {
  const [typed, setTyped] = useState("");
  const inputId = useId();
  const matches = typed === word;
  return (
    <Dialog title={title} onClose={onClose}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (matches && !busy) onConfirm();
        }}
      >
        <div class="dialog-body">{description}</div>
        <label for={inputId}>
          Type <code class="confirm-word">{word}</code> to confirm
        </label>
        <input
          id={inputId}
          value={typed}
          autoComplete="off"
          spellcheck={false}
          onInput={(event) => setTyped(event.currentTarget.value)}
        />
        <ErrorNotice error={error} />
        <div class="actions">
          <button type="submit" class="danger" disabled={!matches || busy}>
            {busy ? "Working…" : actionLabel}
          </button>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** Copies `text`; says so to screen readers. Falls back to a selection copy off secure origins. */
export function CopyButton({ text, label }: { text: string; label: string }): JSX.Element {
  const { announce } = useConsole();
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return undefined;
    const timer = window.setTimeout(() => setCopied(false), 1500);
    return () => window.clearTimeout(timer);
  }, [copied]);
  const copy = () => {
    const done = () => {
      setCopied(true);
      announce(`${label}: copied`);
    };
    const fallback = () => {
      const area = document.createElement("textarea");
      area.value = text;
      area.setAttribute("readonly", "");
      area.className = "offscreen";
      document.body.append(area);
      area.select();
      const ok = document.execCommand("copy");
      area.remove();
      if (ok) done();
      else announce(`${label}: the browser did not allow copying`);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, fallback);
    } else {
      fallback();
    }
  };
  return (
    <button type="button" class="small" onClick={copy} aria-label={label}>
      {copied ? "Copied" : "Copy"}
    </button>
  );
}

/** Re-renders every `ms` while mounted and the page is visible. */
export function useInterval(callback: () => void, ms: number): void {
  const saved = useRef(callback);
  saved.current = callback;
  useEffect(() => {
    const timer = window.setInterval(() => {
      if (document.visibilityState === "visible") saved.current();
    }, ms);
    return () => window.clearInterval(timer);
  }, [ms]);
}
