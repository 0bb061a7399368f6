/**
 * The ess.v1 requests of deletes and stream metadata as the operations take them (the results
 * are ./convert.ts's). The metadata document travels as UTF-8 JSON text of an object in a bytes
 * field: text that is not UTF-8 is refused with INVALID_ARGUMENT, text that is not JSON with
 * INVALID_JSON, each naming `metadata`, as on every interface.
 */
import type { DeleteStreamRequest, SetMetadataRequest } from "../contract/bodies.js";
import { Payload } from "../contract/payload.js";
import type { DeleteRequest__Output } from "./generated/ess/v1/DeleteRequest.js";
import type { SetMetadataRequest__Output } from "./generated/ess/v1/SetMetadataRequest.js";

/** The document's JSON text, parsed (the operations check that it is an object). */
export function documentFromBytes(bytes: Buffer): unknown {
  const payload = Payload.fromUtf8Bytes(bytes, "metadata").requireJson("metadata");
  return JSON.parse(payload.text) as unknown;
}

/** Server side: the request as the setMetadata operation takes it. */
export function fromPbSetMetadataRequest(message: SetMetadataRequest__Output): SetMetadataRequest {
  return {
    stream_id: message.stream_id,
    tenant: message.tenant,
    // No bytes: the operations refuse the missing document ("metadata must be a JSON object").
    metadata: message.metadata.length === 0 ? undefined : documentFromBytes(message.metadata),
    expected_metadata_revision: message.expected_metadata_revision,
  };
}

/** Server side: the request as the delete operation takes it. */
export function fromPbDeleteRequest(message: DeleteRequest__Output): DeleteStreamRequest {
  return {
    stream_id: message.stream_id,
    tenant: message.tenant,
    expected_revision: message.expected_revision,
    tombstone: message.tombstone,
  };
}
