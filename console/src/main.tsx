/**
 * The console's entry: where the API is, the session (token in memory only), the API client,
 * and the shell.
 */
import { render } from "preact";
import { ApiClient } from "./lib/api-client.js";
import { Session } from "./lib/session.js";
import { App } from "./app.js";
import { apiBaseUrl, browserFetch } from "./browser.js";

const baseUrl = apiBaseUrl();
const session = new Session();
const api = new ApiClient({
  baseUrl,
  fetch: browserFetch,
  token: () => session.currentToken(),
  reauthenticate: (refusedToken) => session.reauthenticate(refusedToken),
});

const root = document.getElementById("app");
if (root !== null) render(<App session={session} api={api} baseUrl={baseUrl} />, root);
