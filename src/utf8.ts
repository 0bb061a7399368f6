/**
 * The one rule for text, on every interface (DESIGN.md section 5): text that is not valid UTF-8
 * is refused with INVALID_ARGUMENT, never decoded with replacement characters. That covers raw
 * bytes that are not UTF-8 (a REST body, a WebSocket frame, a protobuf string or JSON payload)
 * and, in decoded text, a lone UTF-16 surrogate (what a JSON escape such as "\ud800" or a WTF-8
 * sequence such as ED A0 80 decodes to), which no UTF-8 can carry.
 *
 * The interfaces check bytes (`requireUtf8`) before they decode them; operations/validate.ts
 * checks every text field of a request (`requireWellFormed`) and every JSON payload
 * (`requireWellFormedJson`), so the engines only ever receive text that is valid UTF-8; each
 * engine's own input check refuses anything else again (a lone surrogate would otherwise be
 * written as U+FFFD: Node encodes it so on its way to a file or to PostgreSQL).
 */
import { isUtf8 } from "node:buffer";
import { invalidArgument } from "./errors.js";

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
  // Most payloads hold no \u escape at all: one indexOf settles them.
  if (text.indexOf("\\u") === -1 || !surrogateEscape.test(text)) return;
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
