/**
 * The console's client of the REST gateway. Every failure, whatever its cause, comes out as an
 * ApiError with a code and a sentence: the contract's error body when the service sent one,
 * NETWORK_ERROR when it did not answer, HTTP_<status> for an answer that is not the contract's
 * shape (a proxy's error page). Never a stack trace or a raw object.
 *
 * The bearer token is asked for on every request (the session holds it, in memory only) and
 * travels only in the Authorization header. A 401 on a request sent with a token asks the
 * session to log in again (the re-login dialog) and, with the new token, retries once.
 *
 * No DOM type here: the fetch function is passed in, so the unit tests pass their own.
 */

export interface HttpResponseLike {
  status: number;
  text(): Promise<string>;
}

export interface FetchInit {
  method: string;
  headers: Record<string, string>;
  body?: string;
}

export type FetchLike = (url: string, init: FetchInit) => Promise<HttpResponseLike>;

export class ApiError extends Error {
  constructor(
    /** The contract's code (STREAM_NOT_FOUND...), or NETWORK_ERROR, HTTP_502, CONSOLE_ERROR. */
    readonly code: string,
    message: string,
    /** The HTTP status, 0 when there was no answer. */
    readonly status: number,
    readonly details: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
    this.name = "ApiError";
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The error an answer's body describes; a body that is not the contract's shape gets HTTP_<status>. */
export function errorFromAnswer(status: number, text: string): ApiError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const error = isRecord(parsed) ? parsed.error : undefined;
  if (isRecord(error) && typeof error.code === "string" && typeof error.message === "string") {
    return new ApiError(error.code, error.message, status, isRecord(error.details) ? error.details : {});
  }
  return new ApiError(`HTTP_${status}`, `the service answered ${status} without an error body`, status);
}

/** Whatever was thrown, as an ApiError: the one place the console turns failures into words. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  // fetch rejects with a TypeError when there is no answer (refused, reset, offline, CORS).
  if (error instanceof TypeError) {
    return new ApiError("NETWORK_ERROR", "the service did not answer; check that it is running", 0);
  }
  return new ApiError("CONSOLE_ERROR", "the console could not do that; reload the page and try again", 0);
}

export type QueryValue = string | number | boolean | null | undefined;

/** `?a=1&b=x` from the values that are set; "" when none is. */
export function queryString(query: Readonly<Record<string, QueryValue>>): string {
  const parts: string[] = [];
  for (const [name, value] of Object.entries(query)) {
    if (value === null || value === undefined || value === "") continue;
    parts.push(`${encodeURIComponent(name)}=${encodeURIComponent(String(value))}`);
  }
  return parts.length === 0 ? "" : `?${parts.join("&")}`;
}

export interface ApiClientOptions {
  /** Where the REST listener's root is, ending in "/": "https://host/" or "https://host/ess/". */
  baseUrl: string;
  fetch: FetchLike;
  /** The current bearer token, or null when logged out. */
  token(): string | null;
  /**
   * Called when a request sent with `refusedToken` got 401: resolves to a newer token (the
   * session has one already, or the operator logged in again) or null (gave up); the request is
   * then retried once with it, or fails with its 401.
   */
  reauthenticate(refusedToken: string): Promise<string | null>;
}

export interface RequestOptions {
  query?: Readonly<Record<string, QueryValue>>;
  body?: unknown;
  /** false for the public routes (login): no token, no re-login on 401. Default true. */
  authenticated?: boolean;
}

export interface Answer<T> {
  status: number;
  body: T;
  /** The body as sent: the event pages show payloads byte for byte from it. */
  text: string;
}

export class ApiClient {
  constructor(private readonly options: ApiClientOptions) {}

  /** `path` is relative to the base URL, without a leading "/": "v1/streams". */
  url(path: string, query: Readonly<Record<string, QueryValue>> = {}): string {
    return `${this.options.baseUrl}${path}${queryString(query)}`;
  }

  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<Answer<T>> {
    const authenticated = options.authenticated ?? true;
    const sentToken = authenticated ? this.options.token() : null;
    const first = await this.send(method, path, options, sentToken);
    if (first.status === 401 && sentToken !== null) {
      const token = await this.options.reauthenticate(sentToken);
      if (token !== null) return this.finish<T>(await this.send(method, path, options, token));
    }
    return this.finish<T>(first);
  }

  async get<T>(path: string, query: Readonly<Record<string, QueryValue>> = {}): Promise<T> {
    return (await this.request<T>("GET", path, { query })).body;
  }

  private async send(
    method: string,
    path: string,
    options: RequestOptions,
    token: string | null,
  ): Promise<{ status: number; text: string }> {
    const headers: Record<string, string> = { accept: "application/json" };
    if (token !== null) headers.authorization = `Bearer ${token}`;
    const init: FetchInit = { method, headers };
    if (options.body !== undefined) {
      headers["content-type"] = "application/json";
      init.body = JSON.stringify(options.body);
    }
    try {
      const response = await this.options.fetch(this.url(path, options.query), init);
      return { status: response.status, text: await response.text() };
    } catch (error) {
      throw toApiError(error);
    }
  }

  private finish<T>(answer: { status: number; text: string }): Answer<T> {
    if (answer.status < 200 || answer.status > 299) throw errorFromAnswer(answer.status, answer.text);
    let body: unknown;
    try {
      body = answer.text === "" ? null : JSON.parse(answer.text);
    } catch {
      throw new ApiError(
        `HTTP_${answer.status}`,
        "the service answered with a body that is not JSON",
        answer.status,
      );
    }
    return { status: answer.status, body: body as T, text: answer.text };
  }
}

/** `v1/streams/a%2Fb`: each path segment encoded. */
export function apiPath(...segments: string[]): string {
  return segments.map((segment, index) => (index === 0 ? segment : encodeURIComponent(segment))).join("/");
}
