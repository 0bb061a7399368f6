/**
 * ess values <-> KurrentDB protocol values (docs/kurrent.md, "How KurrentDB concepts map onto
 * ess"): stream names are UTF-8 bytes, event ids a UUID in string or structured form, positions
 * `commit = prepare = ess position`, `created` .NET ticks (100 ns) since the Unix epoch as text.
 */
import { invalidArgument } from "../errors.js";
import { isUtf8Bytes, requireUtf8 } from "../contract/rules.js";
import type { AppendEventInput } from "../contract/bodies.js";
import { Payload } from "../contract/payload.js";
import type { EventFilterRequest } from "../contract/event-filter.js";
import type { UUID, UUID__Output } from "../rpc/generated/kurrent/event_store/client/UUID.js";
import type { StreamIdentifier__Output } from "../rpc/generated/kurrent/event_store/client/StreamIdentifier.js";

/** How a read asked for event ids: KurrentDB's `uuid_option`. */
export type UuidForm = "string" | "structured";

/** The stream name of an identifier (UTF-8 bytes), INVALID_ARGUMENT when absent or not UTF-8. */
export function streamNameOf(identifier: StreamIdentifier__Output | null | undefined): string {
  const bytes = identifier?.stream_name;
  if (bytes === undefined || bytes.length === 0) {
    throw invalidArgument("stream_identifier is required", { field: "stream_identifier" });
  }
  requireUtf8(bytes, "stream_identifier");
  return bytes.toString("utf8");
}

export function streamIdentifier(name: string): { stream_name: Buffer } {
  return { stream_name: Buffer.from(name, "utf8") };
}

const hex16 = (value: bigint): string => BigInt.asUintN(64, value).toString(16).padStart(16, "0");

/** The canonical text of a UUID message (either form); INVALID_ARGUMENT naming `field` when it is not one. */
export function uuidText(uuid: UUID__Output | null | undefined, field: string): string | undefined {
  if (uuid === null || uuid === undefined) return undefined;
  if (uuid.value === "string") return uuid.string;
  if (uuid.value === "structured" && uuid.structured) {
    let msb: bigint;
    let lsb: bigint;
    try {
      msb = BigInt(uuid.structured.most_significant_bits);
      lsb = BigInt(uuid.structured.least_significant_bits);
    } catch {
      throw invalidArgument(`${field} is not a UUID`, { field });
    }
    const h = hex16(msb) + hex16(lsb);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }
  return undefined;
}

/** A UUID message of `id` (canonical text) in the form a read asked for. */
export function uuidMessage(id: string, form: UuidForm): UUID {
  if (form === "string") return { string: id };
  const h = id.replace(/-/g, "");
  return {
    structured: {
      most_significant_bits: BigInt.asIntN(64, BigInt(`0x${h.slice(0, 16)}`)).toString(),
      least_significant_bits: BigInt.asIntN(64, BigInt(`0x${h.slice(16)}`)).toString(),
    },
  };
}

/** A KurrentDB 64-bit field (text) as a JS number, saturated at 2^53-1 ("as many as there are"). */
export function uint64Number(value: string | undefined): number {
  if (value === undefined || value === "") return 0;
  const big = BigInt(value);
  return big > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(big);
}

/** An event as KurrentDB clients propose it (Append and BatchAppend have the same fields). */
export interface ProposedMessage {
  id: UUID__Output | null;
  metadata: Record<string, string>;
  custom_metadata: Buffer;
  data: Buffer;
}

/**
 * Custom metadata as the operations take it: none when empty; JSON when its bytes are JSON text
 * (what the clients send for an object, so REST and WebSocket readers see it as JSON); else the
 * bytes as they are.
 */
function customMetadata(bytes: Buffer): Payload | undefined {
  if (bytes.length === 0) return undefined;
  if (isUtf8Bytes(bytes)) {
    const text = bytes.toString("utf8");
    try {
      JSON.parse(text);
      return Payload.fromText(text);
    } catch {
      // Not JSON: kept as bytes below.
    }
  }
  return Payload.fromBytes(bytes);
}

/**
 * A proposed event as the operations take it (`field` names it in errors). Its metadata map's
 * `type` is the event type and `content-type` says how its data is kept: `application/json`
 * (UTF-8 JSON text, any JSON value) or `application/octet-stream` (bytes as they are).
 */
export function proposedEvent(message: ProposedMessage, field: string): AppendEventInput {
  const contentType = message.metadata["content-type"];
  let data: Payload;
  if (contentType === "application/json") data = Payload.fromUtf8Bytes(message.data, `${field}.data`);
  else if (contentType === "application/octet-stream") data = Payload.fromBytes(message.data);
  else {
    throw invalidArgument(
      `${field}: content-type must be application/json or application/octet-stream, not '${contentType}'`,
      { field: `${field}.content-type` },
    );
  }
  const metadata = customMetadata(message.custom_metadata);
  return {
    event_type: message.metadata.type,
    data,
    ...(metadata === undefined ? {} : { metadata }),
    event_id: uuidText(message.id, `${field}.id`),
  };
}

/**
 * The ess filter of a KurrentDB read's or subscription's filter option: a stream-name or
 * event-type expression, prefixes or a regular expression (run as RE2 by ess; KurrentDB runs
 * .NET's, which agrees on the patterns clients use, such as `^[^$].*`).
 */
export function filterOf(options: {
  filter_option?: string;
  filter?: {
    filter?: string;
    stream_identifier?: FilterExpression | null;
    event_type?: FilterExpression | null;
  } | null;
}): EventFilterRequest {
  const filter = options.filter;
  if (options.filter_option !== "filter" || !filter) return {};
  const byStream = filter.filter === "stream_identifier";
  const expression = byStream ? filter.stream_identifier : filter.event_type;
  if (!expression) return {};
  const prefixes = expression.prefix.length > 0 ? expression.prefix : undefined;
  const regex = expression.regex !== "" ? expression.regex : undefined;
  return byStream
    ? { stream_prefix: prefixes, stream_regex: regex }
    : { event_type_prefix: prefixes, event_type_regex: regex };
}

interface FilterExpression {
  regex: string;
  prefix: string[];
}
