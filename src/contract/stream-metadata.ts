/**
 * A stream's metadata document (docs/contract.md, "Stream metadata"): a JSON object kept as
 * given, whose keys `$maxAge` (seconds), `$maxCount` and `$tb` (truncate before) are the
 * stream's retention. The retention route and the document are one truth: setting retention
 * rewrites those three keys, setting the document sets the retention. Both engines and the
 * operations use these functions, so every path checks and maps the document the same way.
 */
import { invalidArgument, wrongExpectedRevision } from "../errors.js";
import { limits } from "../limits.js";
import type { MetadataDocument, Retention } from "./bodies.js";

/**
 * The document's retention keys, the Retention field each one is, and its least value (the
 * retention route's rules: an age or count of 0 would hide every event).
 */
export const retentionKeys = [
  ["$maxAge", "max_age_seconds", 1],
  ["$maxCount", "max_count", 1],
  ["$tb", "truncate_before", 0],
] as const satisfies readonly (readonly [string, keyof Retention, number])[];

/** "any" (no check), "no_stream" (never set yet) or the document's current metadata_revision. */
export type ExpectedMetadataRevision = "any" | "no_stream" | number;

function isPlainObject(value: unknown): value is MetadataDocument {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Checks a metadata document: a JSON object of at most limits.streamMetadataBytesMax bytes whose
 * retention keys, when present, are whole numbers >= 0. `field` names it in the error.
 */
export function requireMetadataDocument(value: unknown, field = "metadata"): MetadataDocument {
  if (!isPlainObject(value)) throw invalidArgument(`${field} must be a JSON object`, { field });
  for (const [key, , least] of retentionKeys) {
    if (!Object.hasOwn(value, key)) continue;
    const v = value[key];
    if (typeof v !== "number" || !Number.isSafeInteger(v) || v < least) {
      throw invalidArgument(`${field}.${key} must be a whole number >= ${least}`, {
        field: `${field}.${key}`,
      });
    }
  }
  const bytes = Buffer.byteLength(JSON.stringify(value), "utf8");
  if (bytes > limits.streamMetadataBytesMax) {
    throw invalidArgument(`${field} is larger than ${limits.streamMetadataBytesMax} bytes of JSON`, {
      field,
      bytes,
    });
  }
  return value;
}

/** The retention a (checked) document sets: an absent key is unset. */
export function retentionOf(document: MetadataDocument): Retention {
  const retention: Retention = { max_age_seconds: null, max_count: null, truncate_before: null };
  for (const [key, name] of retentionKeys) {
    const v = document[key];
    if (typeof v === "number") retention[name] = v;
  }
  return retention;
}

/** The document with its retention keys replaced by `retention` (unset fields: no key). */
export function withRetention(document: MetadataDocument, retention: Retention): MetadataDocument {
  const out: MetadataDocument = {};
  const keys = new Set<string>(retentionKeys.map(([key]) => key));
  for (const [k, v] of Object.entries(document)) if (!keys.has(k)) out[k] = v;
  for (const [key, name] of retentionKeys) if (retention[name] !== null) out[key] = retention[name];
  return out;
}

export function requireExpectedMetadataRevision(value: unknown): ExpectedMetadataRevision {
  if (value === undefined || value === null || value === "any") return "any";
  if (value === "no_stream") return value;
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return value;
  if (
    typeof value === "string" &&
    /^(0|[1-9][0-9]{0,15})$/.test(value) &&
    Number.isSafeInteger(Number(value))
  ) {
    return Number(value);
  }
  throw invalidArgument("expected_metadata_revision must be any, no_stream or a whole number >= 0", {
    field: "expected_metadata_revision",
  });
}

/** Throws WRONG_EXPECTED_REVISION when the document's revision is not the expected one. */
export function checkExpectedMetadataRevision(
  streamId: string,
  expected: ExpectedMetadataRevision,
  current: number | null,
): void {
  if (expected === "any") return;
  if (expected === "no_stream" ? current === null : current === expected) return;
  const error = wrongExpectedRevision(streamId, expected, current);
  error.details.field = "expected_metadata_revision";
  throw error;
}

/**
 * The append's expected-revision rule, for a stream whose last revision is `last` (-1: none)
 * and which is `live` (has events and is not deleted): also the rule of the deletes.
 */
export function checkExpectedRevision(
  streamId: string,
  expected: "any" | "no_stream" | "stream_exists" | number,
  last: number,
  live: boolean,
): void {
  const actual = last >= 0 ? last : null;
  if (expected === "no_stream" && live) throw wrongExpectedRevision(streamId, expected, last);
  if (expected === "stream_exists" && !live) throw wrongExpectedRevision(streamId, expected, actual);
  if (typeof expected === "number" && expected !== last)
    throw wrongExpectedRevision(streamId, expected, actual);
}
