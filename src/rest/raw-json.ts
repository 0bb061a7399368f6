/**
 * Keeps the bytes of appended event payloads. An append body is parsed with JSON.parse (to
 * validate it), but the events' `data` and `metadata` are handed to the operations as the
 * exact text the client sent, not as parsed objects to be stringified again. So what a client
 * appends over REST is stored and read back byte for byte, as over gRPC: key order, whitespace,
 * escapes and numbers beyond 2^53 survive.
 *
 * The scanner below only runs on text JSON.parse has already accepted, so it can skip values
 * without checking their grammar. Duplicate keys resolve as in JSON.parse: the last one wins.
 * Because that parse accepted them (and the gateway checked the whole body for UTF-8 and lone
 * surrogates first, ./app.ts), each payload text becomes a checked Payload
 * (Payload.fromParsedObjectText, src/contract/payload.ts): neither the operations nor the engine
 * parse it again, so an append's JSON is parsed once on its way from the socket to the disk.
 */
import { Payload } from "../contract/payload.js";

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;

function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13;
}

function skipSpace(text: string, i: number): number {
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return i;
}

/** `text[i]` is the opening quote; returns the index after the closing quote. */
function skipString(text: string, i: number): number {
  let from = i + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote === -1) return text.length;
    let backslashes = 0;
    for (let b = quote - 1; text.charCodeAt(b) === BACKSLASH; b--) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/** Returns the index after the value starting at `i`. */
function skipValue(text: string, i: number): number {
  const first = text.charCodeAt(i);
  if (first === QUOTE) return skipString(text, i);
  if (first === OPEN_BRACE || first === OPEN_BRACKET) {
    let depth = 0;
    while (i < text.length) {
      const code = text.charCodeAt(i);
      if (code === QUOTE) {
        i = skipString(text, i);
        continue;
      }
      if (code === OPEN_BRACE || code === OPEN_BRACKET) depth++;
      else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
        depth--;
        if (depth === 0) return i + 1;
      }
      i++;
    }
    return i;
  }
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (code === COMMA || code === CLOSE_BRACE || code === CLOSE_BRACKET || isSpace(code)) break;
    i++;
  }
  return i;
}

type Span = [start: number, end: number];

/** Visits the members of the object starting at `text[i]` ("{"); returns the index after it. */
function visitMembers(text: string, i: number, visit: (key: string, value: Span) => void): number {
  i = skipSpace(text, i + 1);
  if (text.charCodeAt(i) === CLOSE_BRACE) return i + 1;
  while (i < text.length) {
    const keyEnd = skipString(text, i);
    const rawKey = text.slice(i + 1, keyEnd - 1);
    const key = rawKey.includes("\\") ? (JSON.parse(text.slice(i, keyEnd)) as string) : rawKey;
    i = skipSpace(text, skipSpace(text, keyEnd) + 1);
    const end = skipValue(text, i);
    visit(key, [i, end]);
    i = skipSpace(text, end);
    if (text.charCodeAt(i) !== COMMA) return i + 1;
    i = skipSpace(text, i + 1);
  }
  return i;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Replaces parsed `data`/`metadata` objects of `event` by their source text in `text`. */
function keepPayloadText(
  event: unknown,
  text: string,
  spans: Partial<Record<"data" | "metadata", Span>>,
): void {
  if (!isPlainObject(event)) return;
  for (const field of ["data", "metadata"] as const) {
    const span = spans[field];
    if (!span || !isPlainObject(event[field])) continue;
    // JSON.parse accepted the whole body and this member is an object: its text is checked.
    event[field] = Payload.fromParsedObjectText(text.slice(span[0], span[1]));
  }
}

/**
 * Puts the source text of every event's `data` and `metadata` into the parsed append body
 * `body` (parsed from `text`), as Payloads. Values that are not objects are left parsed, for
 * the operations to refuse as they would any other.
 */
export function keepEventPayloadText(body: unknown, text: string): void {
  const start = skipSpace(text, 0);
  if (!isPlainObject(body) || text.charCodeAt(start) !== OPEN_BRACE) return;
  const spans: Partial<Record<"data" | "metadata", Span>> = {};
  let events: Span | null = null;
  visitMembers(text, start, (key, span) => {
    if (key === "data" || key === "metadata") spans[key] = span;
    else if (key === "events") events = span;
  });
  keepPayloadText(body, text, spans);
  const list = body.events;
  const eventsSpan = events as Span | null;
  if (!Array.isArray(list) || eventsSpan === null || text.charCodeAt(eventsSpan[0]) !== OPEN_BRACKET) return;
  let i = skipSpace(text, eventsSpan[0] + 1);
  for (let index = 0; index < list.length && text.charCodeAt(i) !== CLOSE_BRACKET; index++) {
    let end: number;
    if (text.charCodeAt(i) === OPEN_BRACE) {
      const eventSpans: Partial<Record<"data" | "metadata", Span>> = {};
      end = visitMembers(text, i, (key, span) => {
        if (key === "data" || key === "metadata") eventSpans[key] = span;
      });
      keepPayloadText(list[index], text, eventSpans);
    } else {
      end = skipValue(text, i);
    }
    i = skipSpace(text, end);
    if (text.charCodeAt(i) !== COMMA) break;
    i = skipSpace(text, i + 1);
  }
}
