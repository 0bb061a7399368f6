/** Schemas of the delete query and the stream-metadata routes (GET/PUT /v1/streams/{id}/metadata). */
import { limits } from "../../limits.js";
import { nullableCount, object, safeIntegerMax, type JsonSchema } from "./building-blocks.js";
import { expectedRevision, query, tenantQueryProperty } from "./requests.js";

export const deleteQuery = query({
  tenant: tenantQueryProperty,
  expected_revision: {
    ...expectedRevision,
    description:
      'The delete happens only if the stream is at this revision: "any" (default), "no_stream", "stream_exists", or the revision of its last event.',
  },
  tombstone: {
    type: "boolean",
    default: false,
    description:
      "true: a tombstone, permanent. The stream's reads and appends then answer 410 STREAM_TOMBSTONED and its name can never be used again.",
  },
});

const metadataDocument: JsonSchema = {
  type: "object",
  description:
    `The stream's metadata document, a JSON object of at most ${limits.streamMetadataBytesMax / 1024} KiB. ` +
    "`$maxAge` (seconds, >= 1), `$maxCount` (>= 1) and `$tb` (truncate before, >= 0) are the stream's retention; " +
    "every other key is kept as given.",
};

export const metadataRequest: JsonSchema = {
  type: "object",
  properties: {
    metadata: metadataDocument,
    expected_metadata_revision: {
      description:
        'Optimistic concurrency on the document: "any" (default), "no_stream" (never set yet), or its current metadata_revision.',
      anyOf: [
        { type: "string", enum: ["any", "no_stream"] },
        { type: "integer", minimum: 0, maximum: safeIntegerMax },
      ],
    },
  },
  required: ["metadata"],
  additionalProperties: false,
};

export const streamMetadata = object({
  stream_id: { type: "string" },
  metadata_revision: nullableCount("0 for the first version, +1 per change; null when never set."),
  metadata: { ...metadataDocument, description: "The document; {} when never set." },
});
