/**
 * The browser's side of the plain modules' seams: fetch, WebSocket and timers as they expect
 * them, and where the service's routes are.
 */
import type { FetchLike } from "./lib/api-client.js";
import type { OpenSocket, Timers } from "./lib/live-subscription.js";

export const browserFetch: FetchLike = (url, init) =>
  // No cookie goes with the console's requests, nor comes back into the page's jar.
  fetch(url, { ...init, credentials: "omit", cache: "no-store", redirect: "error" });

export const openBrowserSocket: OpenSocket = (url, handlers) => {
  const socket = new WebSocket(url);
  socket.onopen = () => handlers.open();
  socket.onmessage = (event: MessageEvent<unknown>) => {
    if (typeof event.data === "string") handlers.message(event.data);
  };
  socket.onclose = (event) => handlers.close(event.code, event.reason);
  return {
    send: (text) => {
      if (socket.readyState === WebSocket.OPEN) socket.send(text);
    },
    close: (code, reason) => socket.close(code, reason),
  };
};

export const browserTimers: Timers = {
  setTimeout: (callback, ms) => window.setTimeout(callback, ms),
  clearTimeout: (handle) => window.clearTimeout(handle as number),
};

/**
 * The URL of the REST listener's root, ending in "/": the configured base path
 * (SERVICE_CONSOLE_BASE_PATH, written into the page's meta tag by the service) or else the
 * folder above the console's own (…/console/ → …/).
 */
export function apiBaseUrl(): string {
  const configured = document.querySelector('meta[name="ess-base-path"]')?.getAttribute("content") ?? "";
  return new URL(configured !== "" ? configured : "../", window.location.href).href;
}

/** ws:// or wss:// of /v1/subscribe under the API's base. */
export function subscribeUrl(baseUrl: string): string {
  const url = new URL("v1/subscribe", baseUrl);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  return url.href;
}
