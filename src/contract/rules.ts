/**
 * The rules every interface and both engines share, each written once: what a stream id, a
 * tenant id, an event type, an event id and a username may hold (docs/contract.md "REST routes",
 * "Limits"), the one control-character rule, the one rule for text (UTF-8, section 5), and the
 * one reading of a bearer header.
 *
 * Who applies them:
 * - the operations, as the one authoritative check of every request (src/operations/validate.ts),
 *   whichever interface carried it;
 * - the REST gateway's schemas state the same patterns (`textPatterns`, src/rest/schemas/), so
 *   the OpenAPI document and the operations cannot drift (src/rest/openapi-lint.test.ts);
 * - the interfaces check bytes for UTF-8 (`requireUtf8`) before they decode them, and read the
 *   bearer header with `bearerTokenOf`;
 * - each engine guards itself against a direct caller with the same functions
 *   (src/storage/validate-input.ts), so a direct call and a request get the same answer.
 *
 * Bounds (bytes, counts) are in src/limits.ts; each rule here names the bound it applies.
 */
import { isUtf8 } from "node:buffer";
import { EssError, invalidArgument, payloadTooLarge } from "../errors.js";
import { limits } from "../limits.js";
import type { ExpectedRevision } from "./bodies.js";

// ---- Patterns ----

/**
 * The text rules, as regular-expression sources: the rules below test with them and the
 * OpenAPI document states them as `pattern`s (ECMAScript syntax, as JSON Schema uses). Byte
 * lengths cannot be a pattern; the document gives them in words.
 */
const idForbiddenCharacters = "\\u0000-\\u001f\\u007f-\\u009f"; // C0 controls, DEL, C1 controls
export const textPatterns = {
  /** A character an id (stream, tenant) must not hold: a C0 control, DEL or a C1 control. */
  idForbiddenCharacter: `[${idForbiddenCharacters}]`,
  /** A whole id: not empty, no control character, not starting with `$`. */
  id: `^[^$${idForbiddenCharacters}][^${idForbiddenCharacters}]*$`,
  /** A username: letters, digits, '.', '_', '@', '-'. */
  username: "^[A-Za-z0-9._@-]+$",
  /** A UUID in its 8-4-4-4-12 hex form (any case). */
  uuid: "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
} as const;

const controlCharacterPattern = new RegExp(textPatterns.idForbiddenCharacter);
const usernamePattern = new RegExp(textPatterns.username);

/**
 * The UUID checks run once or twice per appended event: a loop over a table costs a fraction of
 * the regular expression (textPatterns.uuid, which the tests hold it to). Per character code
 * below 128: HEX_LOWER for 0-9 and a-f, HEX_UPPER for A-F.
 */
const HEX_LOWER = 1;
const HEX_UPPER = 2;
const hexClass = (() => {
  const table = new Uint8Array(128);
  for (const c of "0123456789abcdef") table[c.charCodeAt(0)] = HEX_LOWER;
  for (const c of "ABCDEF") table[c.charCodeAt(0)] = HEX_UPPER;
  return table;
})();

/** True for the 8-4-4-4-12 form whose hex digits are all in `allowed` (a mask of the classes). */
function isUuidForm(text: string, allowed: number): boolean {
  if (text.length !== 36) return false;
  for (let i = 0; i < 36; i++) {
    const c = text.charCodeAt(i);
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (c !== 0x2d) return false;
    } else if (c >= 128 || (hexClass[c]! & allowed) === 0) {
      return false;
    }
  }
  return true;
}

// ---- Control characters ----

/** True when `text` holds a C0 control (U+0000..U+001F), DEL (U+007F) or a C1 control (U+0080..U+009F). */
export function hasControlCharacter(text: string): boolean {
  return controlCharacterPattern.test(text);
}

// ---- Ids, event types, event ids, usernames ----

function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/**
 * A stream id or tenant id: 1..limits.idBytesMax bytes of UTF-8, no control character, not
 * starting with `$` (reserved: `$all`). Returns it; throws INVALID_ARGUMENT naming `field`.
 * A lone surrogate is refused first: it would be stored as U+FFFD, and two ids could then
 * name one stream.
 */
export function requireId(value: unknown, field: string): string {
  if (typeof value !== "string") throw invalidArgument(`${field} must be a string`, { field });
  requireWellFormed(value, field);
  const bytes = utf8Bytes(value);
  if (bytes < 1 || bytes > limits.idBytesMax) {
    throw invalidArgument(`${field} must be 1 to ${limits.idBytesMax} bytes of UTF-8`, { field, bytes });
  }
  if (hasControlCharacter(value)) {
    throw invalidArgument(`${field} must not contain control characters`, { field });
  }
  if (value.startsWith("$")) throw invalidArgument(`${field} must not start with '$'`, { field });
  return value;
}

/**
 * True when requireEventType passes `value`: lets a caller check each event without building
 * its field name, which only an error needs.
 */
export function isEventType(value: unknown): value is string {
  if (typeof value !== "string" || !isWellFormed(value)) return false;
  // Each UTF-16 unit is 1 to 3 bytes of UTF-8: most types are settled by their length alone.
  if (value.length >= 1 && value.length * 3 <= limits.eventTypeBytesMax) return true;
  const bytes = utf8Bytes(value);
  return bytes >= 1 && bytes <= limits.eventTypeBytesMax;
}

/** An event type: 1..limits.eventTypeBytesMax bytes of UTF-8 (isEventType). Returns it. */
export function requireEventType(value: unknown, field: string): string {
  if (isEventType(value)) return value;
  // Which rule it breaks, for the error.
  if (typeof value !== "string") throw invalidArgument(`${field} must be a string`, { field });
  requireWellFormed(value, field);
  throw invalidArgument(`${field} must be 1 to ${limits.eventTypeBytesMax} bytes of UTF-8`, { field });
}

/** True for a UUID in its 8-4-4-4-12 hex form, in any case: an event id as a client may send it. */
export function isUuid(text: string): boolean {
  return isUuidForm(text, HEX_LOWER | HEX_UPPER);
}

/** True for an event id in the form it is stored in: a UUID in lowercase. */
export function isStoredEventId(value: unknown): value is string {
  return typeof value === "string" && isUuidForm(value, HEX_LOWER);
}

/**
 * Refuses a batch that names one event id twice: the events of one append are distinct. Events
 * without an id yet (null: one is generated) are skipped.
 */
export function requireDistinctEventIds(events: readonly { event_id: string | null }[]): void {
  if (events.length < 2) return;
  const seen = new Set<string>();
  for (let i = 0; i < events.length; i++) {
    const eventId = events[i]!.event_id;
    if (eventId === null) continue;
    if (seen.has(eventId)) {
      const field = `events[${i}].event_id`;
      throw invalidArgument(`${field} appears twice in the batch`, { field });
    }
    seen.add(eventId);
  }
}

/** A username: 1..limits.usernameBytesMax of letters, digits, '.', '_', '@', '-'. Returns it. */
export function requireUsername(value: unknown, field: string): string {
  if (typeof value !== "string") throw invalidArgument(`${field} must be a string`, { field });
  if (value.length < 1 || value.length > limits.usernameBytesMax || !usernamePattern.test(value)) {
    throw invalidArgument(
      `${field} must be 1 to ${limits.usernameBytesMax} letters, digits, '.', '_', '@' or '-'`,
      { field },
    );
  }
  return value;
}

// ---- An append's shape and size ----

/** `"any"`, `"no_stream"`, `"stream_exists"` or a whole revision >= 0. Returns it. */
export function requireExpectedRevision(value: unknown): ExpectedRevision {
  if (value === "any" || value === "no_stream" || value === "stream_exists") return value;
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return value;
  throw invalidArgument(
    "expected_revision must be any, no_stream, stream_exists or the revision of the stream's last event",
    { field: "expected_revision" },
  );
}

/** An append carries 1..limits.appendEventsMax events. */
export function requireEventCount(count: number): void {
  if (count < 1 || count > limits.appendEventsMax) {
    throw invalidArgument(`events must hold 1 to ${limits.appendEventsMax} events`, {
      field: "events",
      count,
    });
  }
}

/** One event's data plus metadata hold at most limits.eventBytesMax bytes (JSON as UTF-8, or bytes). */
export function requireEventBytes(bytes: number, field: string): void {
  if (bytes > limits.eventBytesMax) {
    throw payloadTooLarge(`an event holds at most ${limits.eventBytesMax} bytes of data and metadata`, {
      field,
      bytes,
      max_bytes: limits.eventBytesMax,
    });
  }
}

/** The events of one append hold at most limits.appendBodyBytesMax bytes of data and metadata. */
export function requireAppendBytes(bytes: number): void {
  if (bytes > limits.appendBodyBytesMax) {
    throw payloadTooLarge(
      `one append holds at most ${limits.appendBodyBytesMax} bytes of data and metadata`,
      {
        bytes,
        max_bytes: limits.appendBodyBytesMax,
      },
    );
  }
}

/** True when `text` is JSON text (any value: an object, an array, a string, a number, a literal). */
export function isJsonText(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

// ---- base64 ----

/** Standard base64 (RFC 4648 section 4): the 64 characters, then at most two "=". */
const base64Text = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * The bytes of a base64 string (`data_base64`, `metadata_base64`): the standard alphabet with
 * its padding, a multiple of 4 characters, no whitespace. Anything else is INVALID_ARGUMENT
 * naming `field` (Buffer.from would skip what it does not know and store other bytes).
 */
export function requireBase64(value: unknown, field: string): Buffer {
  if (typeof value !== "string" || value.length % 4 !== 0 || !base64Text.test(value)) {
    throw invalidArgument(`${field} must be a base64 string (standard alphabet, padded)`, { field });
  }
  return Buffer.from(value, "base64");
}

// ---- UTF-8 ----
//
// Text that is not valid UTF-8 is refused with INVALID_ARGUMENT, never decoded with replacement
// characters, on every interface. That covers raw bytes that are not UTF-8 (a REST body, a
// WebSocket frame, a protobuf string or JSON payload) and, in decoded text, a lone UTF-16
// surrogate (what a JSON escape such as "\ud800" or a WTF-8 sequence such as ED A0 80 decodes
// to), which no UTF-8 can carry. The interfaces check bytes (`requireUtf8`) before they decode
// them; the operations check every text field of a request (`requireWellFormed`) and every JSON
// payload (`requireWellFormedJson`); an engine refuses anything else again (a lone surrogate
// would otherwise be written as U+FFFD: Node encodes it so on its way to a file or PostgreSQL).

/** String.prototype.isWellFormed (Node 20; not in the ES2023 typings this project compiles with). */
const isWellFormedString = (String.prototype as unknown as { isWellFormed: (this: string) => boolean })
  .isWellFormed;

export function isWellFormed(text: string): boolean {
  return isWellFormedString.call(text);
}

/** Below this many bytes a JS loop finds pure ASCII faster than a call into C++. */
const asciiLoopBytesMax = 48;

/** True when `bytes` are valid UTF-8 (a surrogate's three-byte form, as WTF-8 writes it, is not). */
export function isUtf8Bytes(bytes: Uint8Array): boolean {
  if (bytes.length <= asciiLoopBytesMax) {
    let ascii = true;
    for (let i = 0; i < bytes.length; i++) {
      if (bytes[i]! >= 0x80) {
        ascii = false;
        break;
      }
    }
    if (ascii) return true;
  }
  return isUtf8(bytes);
}

function notUtf8(field: string) {
  const name = field || "the request body";
  return invalidArgument(`${name} is not valid UTF-8`, { field: name });
}

/** Refuses bytes that are not valid UTF-8. */
export function requireUtf8(bytes: Uint8Array, field: string): void {
  if (!isUtf8Bytes(bytes)) throw notUtf8(field);
}

/** Refuses decoded text holding a lone surrogate. Returns the text. */
export function requireWellFormed(text: string, field: string): string {
  if (!isWellFormed(text)) throw notUtf8(field);
  return text;
}

/**
 * A JSON escape of a surrogate (high or low). Text without one cannot decode to a lone surrogate
 * when it is itself well formed, so only such text needs the full walk below.
 */
const surrogateEscape = /\\u[dD][89a-fA-F][0-9a-fA-F]{2}/;

/**
 * The name of the first string or key in `value` (a parsed JSON value) holding a lone
 * surrogate, as a path below `field`; null when there is none.
 */
function illFormedPath(value: unknown, field: string): string | null {
  if (typeof value === "string") return isWellFormed(value) ? null : field || "the request body";
  if (typeof value !== "object" || value === null) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = illFormedPath(value[i], `${field}[${i}]`);
      if (found !== null) return found;
    }
    return null;
  }
  for (const [key, inner] of Object.entries(value)) {
    if (!isWellFormed(key)) return field || "a key of the request body";
    const found = illFormedPath(inner, field === "" ? key : `${field}.${key}`);
    if (found !== null) return found;
  }
  return null;
}

/** Most payloads hold no \\u escape at all: one indexOf settles them. */
function hasUnicodeEscape(text: string): boolean {
  return text.indexOf("\\u") !== -1;
}

/**
 * True when requireWellFormedJson passes `text` without a closer look (well formed, no \\u
 * escape): the common case, checked without building the field name an error would need.
 */
export function isPlainWellFormedJson(text: string): boolean {
  return isWellFormed(text) && !hasUnicodeEscape(text);
}

/**
 * Refuses JSON text whose strings or keys, once decoded, hold a lone surrogate: an escape such
 * as "\ud800" without its pair, or a lone surrogate written raw. `parsed` is the text's value
 * when the caller has it (else the text is parsed here, only when it holds a surrogate escape).
 * `field` names the value ("" for a whole request body: paths then start at its keys).
 * `decodedFromUtf8`: the text was decoded from bytes that passed `requireUtf8`.
 */
export function requireWellFormedJson(
  text: string,
  field: string,
  parsed?: unknown,
  decodedFromUtf8 = false,
): void {
  // Text decoded from bytes that passed requireUtf8 holds no raw lone surrogate: the scan is
  // skipped for it (it costs about 3 ms per MiB of non-ASCII text).
  if (!decodedFromUtf8 && !isWellFormed(text)) throw notUtf8(field);
  if (!hasUnicodeEscape(text) || !surrogateEscape.test(text)) return;
  let value = parsed;
  if (value === undefined) {
    try {
      value = JSON.parse(text);
    } catch {
      return; // Not JSON: the caller's own parse refuses it.
    }
  }
  const path = illFormedPath(value, field);
  if (path !== null) throw notUtf8(path);
}

/** Refuses a parsed JSON value (a REST body) holding a lone surrogate in a string or key. */
export function requireWellFormedValue(value: unknown, field: string): void {
  const path = illFormedPath(value, field);
  if (path !== null) throw notUtf8(path);
}

// ---- Bearer header ----

/**
 * The one reading of an `Authorization: Bearer <token>` header (HTTP), `authorization` metadata
 * (gRPC) or WebSocket upgrade header, so every interface accepts and refuses the same headers.
 *
 * Rule: the scheme `Bearer` in any case, one or more spaces or tabs, the token (no whitespace),
 * optional trailing spaces or tabs. Any other form is refused (UNAUTHENTICATED): a client that
 * sends credentials the service cannot read should learn it, not be treated as anonymous.
 */
const bearerPattern = /^Bearer[ \t]+([^\s]+)[ \t]*$/i;

export const malformedBearerMessage = "the Authorization header must be 'Bearer <token>'";

/**
 * The token of a header value; null when there is no header. A repeated header (an array)
 * counts by its first value. Throws UNAUTHENTICATED for any other form.
 */
export function bearerTokenOf(header: unknown): string | null {
  if (header === undefined || header === null) return null;
  const value: unknown = Array.isArray(header) ? header[0] : header;
  const match = typeof value === "string" ? bearerPattern.exec(value) : null;
  if (!match?.[1]) throw new EssError("UNAUTHENTICATED", malformedBearerMessage);
  return match[1];
}
