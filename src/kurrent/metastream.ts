/**
 * KurrentDB's metastreams: `$$orders-1` holds the metadata of `orders-1` as JSON events of type
 * `$metadata`, the newest winning. On ess a stream's metadata is one document with a revision
 * (Streams.GetMetadata / SetMetadata, whose `$maxAge`, `$maxCount` and `$tb` keys are the
 * stream's retention), so the listener maps the metastream onto it (docs/kurrent.md, "Stream
 * metadata"):
 * - an append of one JSON event to `$$s` sets the document of `s`, its expected revision checked
 *   against the metadata revision (`stream_exists` is taken as `any`); the answer's revision is
 *   the new metadata revision, with no position (the document is not an event of `$all`);
 * - a read of `$$s` gives one `$metadata` event, the current document, at revision = metadata
 *   revision (earlier versions are not kept), or "stream not found" when none was ever set.
 */
import { createHash } from "node:crypto";
import { invalidArgument } from "../errors.js";
import type { AppendEventInput, EventRecord, ExpectedRevision } from "../contract/bodies.js";
import { Payload } from "../contract/payload.js";
import type { ExpectedMetadataRevision } from "../contract/stream-metadata.js";
import type { CallContext } from "../operations/contract.js";
import type { KurrentDeps } from "./deps.js";

const prefix = "$$";

/** The stream whose metastream `name` is, or null when `name` is not a metastream's. */
export function metastreamOf(name: string): string | null {
  return name.startsWith(prefix) && name.length > prefix.length ? name.slice(prefix.length) : null;
}

/** A stable id for a metadata version: the same stream and revision always read back the same. */
function versionId(stream: string, revision: number): string {
  const h = createHash("sha256").update(`${stream}\u0000${revision}`).digest("hex");
  // Shaped as a version-4-like UUID so clients that check the form accept it.
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The current metadata of `stream` as the one event of its metastream, or null when never set. */
export async function readMetastream(
  deps: KurrentDeps,
  ctx: CallContext,
  stream: string,
): Promise<EventRecord | null> {
  const metadata = await deps.operations.getMetadata(ctx, { stream_id: stream });
  if (metadata.metadata_revision === null) return null;
  return {
    stream_id: prefix + stream,
    revision: metadata.metadata_revision,
    // Not an event of $all: KurrentDB's clients read this field as the metastream's revision.
    position: metadata.metadata_revision,
    event_id: versionId(stream, metadata.metadata_revision),
    event_type: "$metadata",
    data: JSON.stringify(metadata.metadata),
    metadata: "",
    created_at: new Date().toISOString(),
    content_type: "application/json",
  };
}

/**
 * An append's expected revision for a metastream, as the metadata revision it checks:
 * `stream_exists` is taken as `any` (a metastream "exists" once its stream does; docs/kurrent.md).
 */
export function metadataRevisionExpected(expected: ExpectedRevision): ExpectedMetadataRevision {
  return expected === "stream_exists" ? "any" : expected;
}

/** Sets the metadata of `stream` from an append to its metastream; returns the new metadata revision. */
export async function appendMetastream(
  deps: KurrentDeps,
  ctx: CallContext,
  stream: string,
  expected: ExpectedRevision,
  events: AppendEventInput[],
): Promise<number> {
  const last = events[events.length - 1];
  if (last === undefined) throw invalidArgument("an append to a metastream holds its metadata event");
  const data = last.data;
  if (data instanceof Payload && data.isBinary) {
    throw invalidArgument("stream metadata must be JSON", { field: "data" });
  }
  const text = data instanceof Payload ? data.text : JSON.stringify(data);
  let metadata: unknown;
  try {
    metadata = JSON.parse(text);
  } catch {
    throw invalidArgument("stream metadata must be a JSON object", { field: "data" });
  }
  const result = await deps.operations.setMetadata(ctx, {
    stream_id: stream,
    metadata,
    expected_metadata_revision: metadataRevisionExpected(expected),
  });
  return result.metadata_revision ?? 0;
}
