/**
 * How an EventRecord's payload parts appear in JSON (the REST read results, the WebSocket event
 * frames), one rule for both: JSON text is spliced in as it is, under its own name (`data`,
 * `metadata`), never parsed and re-serialized; bytes (a binary event's data, metadata appended
 * as bytes) are written as base64 under the name with `_base64` (`data_base64`,
 * `metadata_base64`), so that a reader can tell the two apart without knowing the event.
 */

/** `"data":<JSON text>` or `"data_base64":"<base64>"` (and likewise for metadata). */
export function payloadMemberJson(name: "data" | "metadata", part: string | Buffer): string {
  if (typeof part === "string") return `"${name}":${part}`;
  return `"${name}_base64":"${part.toString("base64")}"`;
}

/** `,"content_type":"..."`: a content type is one of two ASCII constants, so no escaping is needed. */
export function contentTypeMemberJson(contentType: string): string {
  return `,"content_type":"${contentType}"`;
}
