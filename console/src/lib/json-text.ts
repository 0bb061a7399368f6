/**
 * JSON as text, untouched by JSON.parse. The service returns an event's `data` and `metadata`
 * as the JSON text it stored, spliced into the answer byte for byte; parsing them would lose
 * what the operator may be looking for (number spelling such as `1.50` or `1e3`, integers past
 * 2^53, duplicate keys, escapes). So the event page takes each payload's text straight out of
 * the answer's text (`eventPayloadTexts`) and indents it without parsing its values
 * (`indentJson`): only whitespace between tokens changes.
 *
 * Both work on text that JSON.parse accepted already (the API client parsed the answer), so
 * they do not validate; on text that is not JSON they give up (null) rather than guess.
 */

function isWhitespace(char: string | undefined): boolean {
  return char === " " || char === "\n" || char === "\r" || char === "\t";
}

function skipWhitespace(text: string, index: number): number {
  let i = index;
  while (isWhitespace(text[i])) i += 1;
  return i;
}

/** The index just past the string that opens at `index` (a `"`). */
function endOfString(text: string, index: number): number {
  let i = index + 1;
  while (i < text.length) {
    const char = text[i];
    if (char === "\\") i += 2;
    else if (char === '"') return i + 1;
    else i += 1;
  }
  return -1;
}

/** The index just past the value that starts at `index` (after whitespace), or -1. */
function endOfValue(text: string, index: number): number {
  const start = skipWhitespace(text, index);
  const char = text[start];
  if (char === '"') return endOfString(text, start);
  if (char === "{" || char === "[") {
    let depth = 0;
    let i = start;
    while (i < text.length) {
      const c = text[i];
      if (c === '"') {
        i = endOfString(text, i);
        if (i < 0) return -1;
        continue;
      }
      if (c === "{" || c === "[") depth += 1;
      else if (c === "}" || c === "]") {
        depth -= 1;
        if (depth === 0) return i + 1;
      }
      i += 1;
    }
    return -1;
  }
  // A number or a literal: up to the next delimiter.
  let i = start;
  while (i < text.length && !/[\s,}\]]/.test(text[i] ?? "")) i += 1;
  return i > start ? i : -1;
}

/**
 * Calls `onMember(key, valueStart, valueEnd)` for each member of the object at `index`; returns
 * the index just past the object, or -1.
 */
function forEachMember(
  text: string,
  index: number,
  onMember: (key: string, valueStart: number, valueEnd: number) => void,
): number {
  let i = skipWhitespace(text, index);
  if (text[i] !== "{") return -1;
  i = skipWhitespace(text, i + 1);
  if (text[i] === "}") return i + 1;
  for (;;) {
    if (text[i] !== '"') return -1;
    const keyEnd = endOfString(text, i);
    if (keyEnd < 0) return -1;
    const key = JSON.parse(text.slice(i, keyEnd)) as string;
    i = skipWhitespace(text, keyEnd);
    if (text[i] !== ":") return -1;
    const valueStart = skipWhitespace(text, i + 1);
    const valueEnd = endOfValue(text, valueStart);
    if (valueEnd < 0) return -1;
    onMember(key, valueStart, valueEnd);
    i = skipWhitespace(text, valueEnd);
    if (text[i] === "}") return i + 1;
    if (text[i] !== ",") return -1;
    i = skipWhitespace(text, i + 1);
  }
}

export interface PayloadTexts {
  data: string | null;
  metadata: string | null;
}

/**
 * The stored JSON text of `data` and `metadata` of each event of a ReadResult or ReadAllResult
 * answer, in the order of its `events`; null for a payload the event does not carry as JSON
 * (binary: `data_base64`). Returns null when the text is not such an answer.
 */
export function eventPayloadTexts(answerText: string): PayloadTexts[] | null {
  let eventsStart = -1;
  let eventsEnd = -1;
  const end = forEachMember(answerText, 0, (key, start, stop) => {
    if (key === "events") [eventsStart, eventsEnd] = [start, stop];
  });
  if (end < 0 || eventsStart < 0 || answerText[eventsStart] !== "[") return null;
  const payloads: PayloadTexts[] = [];
  let i = skipWhitespace(answerText, eventsStart + 1);
  if (answerText[i] === "]") return payloads;
  while (i < eventsEnd) {
    const payload: PayloadTexts = { data: null, metadata: null };
    const next = forEachMember(answerText, i, (key, start, stop) => {
      if (key === "data" || key === "metadata") payload[key] = answerText.slice(start, stop);
    });
    if (next < 0) return null;
    payloads.push(payload);
    i = skipWhitespace(answerText, next);
    if (answerText[i] === "]") return payloads;
    if (answerText[i] !== ",") return null;
    i = skipWhitespace(answerText, i + 1);
  }
  return null;
}

/**
 * `text` with two-space indentation, its strings, numbers and literals exactly as written; an
 * empty object or array stays `{}` / `[]`. Null when `text` is not one JSON value.
 */
export function indentJson(text: string, indent = "  "): string | null {
  const parts: string[] = [];
  let depth = 0;
  let i = skipWhitespace(text, 0);
  const newline = () => `\n${indent.repeat(depth)}`;
  while (i < text.length) {
    const char = text[i] ?? "";
    if (char === '"') {
      const end = endOfString(text, i);
      if (end < 0) return null;
      parts.push(text.slice(i, end));
      i = end;
    } else if (char === "{" || char === "[") {
      const close = char === "{" ? "}" : "]";
      const next = skipWhitespace(text, i + 1);
      if (text[next] === close) {
        parts.push(char + close);
        i = next + 1;
      } else {
        depth += 1;
        parts.push(char + newline());
        i = next;
      }
    } else if (char === "}" || char === "]") {
      depth -= 1;
      if (depth < 0) return null;
      parts.push(newline() + char);
      i += 1;
    } else if (char === ",") {
      parts.push("," + newline());
      i += 1;
    } else if (char === ":") {
      parts.push(": ");
      i += 1;
    } else if (isWhitespace(char)) {
      i += 1;
    } else {
      const end = endOfValue(text, i);
      if (end <= i) return null;
      parts.push(text.slice(i, end));
      i = end;
    }
    i = skipWhitespace(text, i);
  }
  return depth === 0 ? parts.join("") : null;
}
