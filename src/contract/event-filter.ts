/**
 * The filter of a `$all` read or subscription, shared by the operations (which check a client's
 * filter) and both engines (which match events with it).
 *
 * Rules (docs/contract.md, "Filters on $all"):
 * - four criteria, each optional: `stream_prefix` and `event_type_prefix` (lists: an event
 *   matches a list when its stream id / event type starts with any of them), `stream_regex` and
 *   `event_type_regex` (RE2 syntax, unanchored: matching anywhere, as `^…$` anchors say
 *   otherwise). An event passes when it meets every criterion given; no criterion: every event;
 * - the regular expressions run on re2js, a linear-time engine (no backtracking): matching costs
 *   time proportional to the text, whatever the pattern, so a hostile pattern such as `(a+)+$`
 *   cannot stall the service. Syntax RE2 refuses (look-around, back-references) is INVALID_ARGUMENT;
 * - bounds: limits.filterPrefixesMax prefixes per list, each a non-empty string of at most
 *   limits.idBytesMax (stream) / limits.eventTypeBytesMax (type) bytes; limits.filterRegexCharsMax
 *   characters per regular expression. Past one: INVALID_ARGUMENT naming the field.
 */
import { RE2JS } from "re2js";
import { invalidArgument } from "../errors.js";
import { limits } from "../limits.js";
import { requireWellFormed } from "./rules.js";

export interface EventFilter {
  stream_prefix: readonly string[];
  event_type_prefix: readonly string[];
  stream_regex: string | null;
  event_type_regex: string | null;
}

/** The filter that lets every event through. */
export const noFilter: EventFilter = Object.freeze({
  stream_prefix: [],
  event_type_prefix: [],
  stream_regex: null,
  event_type_regex: null,
});

export function isFiltering(filter: EventFilter | null | undefined): filter is EventFilter {
  return (
    filter !== null &&
    filter !== undefined &&
    (filter.stream_prefix.length > 0 ||
      filter.event_type_prefix.length > 0 ||
      filter.stream_regex !== null ||
      filter.event_type_regex !== null)
  );
}

/** A filter as a client sent it (each field unknown until checked). */
export interface EventFilterRequest {
  stream_prefix?: unknown;
  event_type_prefix?: unknown;
  stream_regex?: unknown;
  event_type_regex?: unknown;
}

/** Checks a client's filter; INVALID_ARGUMENT naming the field on anything out of its rules. */
export function parseEventFilter(request: EventFilterRequest): EventFilter {
  const filter: EventFilter = {
    stream_prefix: parsePrefixList(request.stream_prefix, "stream_prefix", limits.idBytesMax),
    event_type_prefix: parsePrefixList(
      request.event_type_prefix,
      "event_type_prefix",
      limits.eventTypeBytesMax,
    ),
    stream_regex: parseRegex(request.stream_regex, "stream_regex"),
    event_type_regex: parseRegex(request.event_type_regex, "event_type_regex"),
  };
  // Compiled once here, so a bad pattern is refused before any read.
  if (filter.stream_regex !== null) compileRegex(filter.stream_regex, "stream_regex");
  if (filter.event_type_regex !== null) compileRegex(filter.event_type_regex, "event_type_regex");
  return filter;
}

function parsePrefixList(value: unknown, field: string, bytesMax: number): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalidArgument(`${field} must be a list of strings`, { field });
  if (value.length > limits.filterPrefixesMax) {
    throw invalidArgument(`${field} holds at most ${limits.filterPrefixesMax} prefixes`, {
      field,
      limit: limits.filterPrefixesMax,
    });
  }
  const prefixes: string[] = [];
  for (const item of value as unknown[]) {
    if (typeof item !== "string" || item.length === 0 || Buffer.byteLength(item) > bytesMax) {
      throw invalidArgument(`each ${field} must be a string of 1 to ${bytesMax} bytes`, { field });
    }
    prefixes.push(requireWellFormed(item, field));
  }
  return prefixes;
}

function parseRegex(value: unknown, field: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "string" || value.length === 0 || value.length > limits.filterRegexCharsMax) {
    throw invalidArgument(
      `${field} must be a regular expression of 1 to ${limits.filterRegexCharsMax} characters`,
      {
        field,
        limit: limits.filterRegexCharsMax,
      },
    );
  }
  return requireWellFormed(value, field);
}

/** Compiled patterns, by pattern text: a client paging with one filter compiles it once. */
const compiled = new Map<string, RE2JS>();
const compiledMax = 256;

function compileRegex(pattern: string, field: string): RE2JS {
  const known = compiled.get(pattern);
  if (known !== undefined) return known;
  let re: RE2JS;
  try {
    re = RE2JS.compile(pattern);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw invalidArgument(`${field} is not a valid RE2 regular expression: ${reason}`, { field });
  }
  if (compiled.size >= compiledMax) compiled.clear();
  compiled.set(pattern, re);
  return re;
}

/** Results kept per matcher before it forgets them (a read meets a bounded set of names). */
const rememberedMax = 4096;

/**
 * A filter ready to match: `stream` and `type` answer for one stream id or event type, each
 * remembering its answers (a page meets the same streams and types again and again).
 * `checksStream` / `checksType` say whether there is anything to check at all.
 */
export class EventMatcher {
  readonly checksStream: boolean;
  readonly checksType: boolean;
  /** The event type prefixes as UTF-8, for matching on stored bytes (typeBytes). */
  readonly typePrefixBytes: readonly Buffer[];
  private readonly streamRe: RE2JS | null;
  private readonly typeRe: RE2JS | null;
  private readonly streams = new Map<string, boolean>();
  private readonly types = new Map<string, boolean>();

  constructor(readonly filter: EventFilter) {
    this.streamRe = filter.stream_regex === null ? null : compileRegex(filter.stream_regex, "stream_regex");
    this.typeRe =
      filter.event_type_regex === null ? null : compileRegex(filter.event_type_regex, "event_type_regex");
    this.checksStream = filter.stream_prefix.length > 0 || this.streamRe !== null;
    this.checksType = filter.event_type_prefix.length > 0 || this.typeRe !== null;
    this.typePrefixBytes = filter.event_type_prefix.map((p) => Buffer.from(p, "utf8"));
  }

  /** Whether the type criteria need the type as a string (a regex), not only its bytes. */
  get typeNeedsText(): boolean {
    return this.typeRe !== null;
  }

  stream(streamId: string): boolean {
    return !this.checksStream || remembered(this.streams, streamId, this.filter.stream_prefix, this.streamRe);
  }

  type(eventType: string): boolean {
    return !this.checksType || remembered(this.types, eventType, this.filter.event_type_prefix, this.typeRe);
  }

  /**
   * The type prefixes on stored bytes: whether `buf[start, end)` (an event type, UTF-8) starts
   * with one of them; true when there are none. A regex, if any, is still to be checked (type).
   */
  typeBytesHavePrefix(buf: Buffer, start: number, end: number): boolean {
    const prefixes = this.typePrefixBytes;
    if (prefixes.length === 0) return true;
    for (const p of prefixes) {
      if (end - start >= p.length && buf.compare(p, 0, p.length, start, start + p.length) === 0) return true;
    }
    return false;
  }
}

/** matches(), answered from `answers` when the text was seen (up to rememberedMax texts). */
function remembered(
  answers: Map<string, boolean>,
  text: string,
  prefixes: readonly string[],
  re: RE2JS | null,
): boolean {
  let ok = answers.get(text);
  if (ok === undefined) {
    ok = matches(text, prefixes, re);
    if (answers.size >= rememberedMax) answers.clear();
    answers.set(text, ok);
  }
  return ok;
}

function matches(text: string, prefixes: readonly string[], re: RE2JS | null): boolean {
  if (prefixes.length > 0 && !prefixes.some((p) => text.startsWith(p))) return false;
  return re === null || re.test(text);
}
