/**
 * Hand-written protobuf decoders for the KurrentDB listener's append requests (see ./codec.ts
 * for why, and for the invariants test/kurrent/codec-conformance.test.ts checks):
 * `decodeBatchAppendReq`, `decodeAppendReq`, with their proposed events.
 */
import { invalidArgument } from "../errors.js";
import { LENGTH_DELIMITED, VARINT, emptyBytes, key, readerFor, type ProtoReader } from "../rpc/codec/wire.js";
import type { UUID__Output } from "../rpc/generated/kurrent/event_store/client/UUID.js";
import type { StreamIdentifier__Output } from "../rpc/generated/kurrent/event_store/client/StreamIdentifier.js";
import type { BatchAppendReq__Output } from "../rpc/generated/kurrent/event_store/client/streams/BatchAppendReq.js";
import type { AppendReq__Output } from "../rpc/generated/kurrent/event_store/client/streams/AppendReq.js";
import type { ProposedMessage } from "./convert.js";
import { RepeatedText } from "../buffer-text.js";

// ---------------------------------------------------------------- 64-bit text

/** A varint's 64 bits as [lo, hi] (unsigned 32-bit halves); INVALID_ARGUMENT when truncated or too long. */
function varint64(r: ProtoReader): [number, number] {
  const buf = r.buf;
  let lo = 0;
  let hi = 0;
  for (let i = 0; i < 10; i++) {
    if (r.pos >= r.end) throw invalidArgument("malformed protobuf message: truncated varint");
    const b = buf[r.pos++]!;
    if (i < 4) lo |= (b & 127) << (7 * i);
    else if (i === 4) {
      lo |= (b & 127) << 28;
      hi |= (b & 127) >> 4;
    } else hi |= (b & 127) << (7 * i - 32);
    if (b < 128) return [lo >>> 0, hi >>> 0];
  }
  throw invalidArgument("malformed protobuf message: varint longer than 10 bytes");
}

/** A uint64 field as proto-loader gives it with `longs: String`: exact decimal text. */
function uint64Text(r: ProtoReader): string {
  const [lo, hi] = varint64(r);
  if (hi < 0x200000) return String(hi * 4294967296 + lo);
  return ((BigInt(hi) << 32n) | BigInt(lo)).toString();
}

/** An int64 field as decimal text (two's complement: the top bit set is negative). */
function int64Text(r: ProtoReader): string {
  const [lo, hi] = varint64(r);
  if (hi < 0x200000) return String(hi * 4294967296 + lo);
  return BigInt.asIntN(64, (BigInt(hi) << 32n) | BigInt(lo)).toString();
}

// ---------------------------------------------------------------- decoding

/** Reads the embedded message whose key was just read with `read`, inside its own bounds. */
function embedded<T>(r: ProtoReader, read: (r: ProtoReader) => T): T {
  const end = r.delimitedEnd();
  const outer = r.end;
  r.end = end;
  const value = read(r);
  r.pos = end;
  r.end = outer;
  return value;
}

/** google.protobuf.Empty or event_store.client.Empty: `{}` whatever unknown fields it holds. */
function empty(r: ProtoReader): Record<string, never> {
  return embedded(r, (inner) => {
    while (inner.pos < inner.end) inner.skip(inner.varint32());
    return {};
  });
}

function decodeStructured(r: ProtoReader): { most_significant_bits: string; least_significant_bits: string } {
  const out = { most_significant_bits: "0", least_significant_bits: "0" };
  while (r.pos < r.end) {
    const k = r.varint32();
    if (k === key(1, VARINT)) out.most_significant_bits = int64Text(r);
    else if (k === key(2, VARINT)) out.least_significant_bits = int64Text(r);
    else r.skip(k);
  }
  return out;
}

function decodeUuid(r: ProtoReader): UUID__Output {
  const out: UUID__Output = {};
  while (r.pos < r.end) {
    const k = r.varint32();
    if (k === key(1, LENGTH_DELIMITED)) {
      if (out.value !== undefined) delete out.string;
      out.structured = embedded(r, decodeStructured);
      out.value = "structured";
    } else if (k === key(2, LENGTH_DELIMITED)) {
      if (out.value !== undefined) delete out.structured;
      out.string = r.string("uuid");
      out.value = "string";
    } else r.skip(k);
  }
  return out;
}

function decodeStreamIdentifier(r: ProtoReader): StreamIdentifier__Output {
  let name: Buffer = emptyBytes;
  while (r.pos < r.end) {
    const k = r.varint32();
    if (k === key(3, LENGTH_DELIMITED)) name = r.bytes();
    else r.skip(k);
  }
  return { stream_name: name };
}

/**
 * The last text of the first metadata entries' keys and values (../buffer-text.ts): clients send
 * the same `type` and `content-type` entries with every event, so most are not decoded again.
 */
const entryTexts = [new RepeatedText(), new RepeatedText(), new RepeatedText(), new RepeatedText()];

/** The `index`-th map<string, string> entry into `into` (a key or value left out is ""). */
function decodeMapEntry(r: ProtoReader, into: Record<string, string>, index: number): void {
  let k = "";
  let v = "";
  const texts = index < 2 ? entryTexts : null;
  while (r.pos < r.end) {
    const fieldKey = r.varint32();
    if (fieldKey === key(1, LENGTH_DELIMITED))
      k = texts === null ? r.string("metadata") : r.repeatedString(texts[2 * index]!);
    else if (fieldKey === key(2, LENGTH_DELIMITED))
      v = texts === null ? r.string("metadata") : r.repeatedString(texts[2 * index + 1]!);
    else r.skip(fieldKey);
  }
  into[k] = v;
}

/** AppendReq.ProposedMessage and BatchAppendReq.ProposedMessage (the same fields). */
function decodeProposedMessage(r: ProtoReader): ProposedMessage {
  const out: ProposedMessage = { id: null, metadata: {}, custom_metadata: emptyBytes, data: emptyBytes };
  let entries = 0;
  while (r.pos < r.end) {
    const k = r.varint32();
    switch (k) {
      case key(1, LENGTH_DELIMITED):
        out.id = embedded(r, decodeUuid);
        break;
      case key(2, LENGTH_DELIMITED): {
        const end = r.delimitedEnd();
        const outer = r.end;
        r.end = end;
        decodeMapEntry(r, out.metadata, entries++);
        r.pos = end;
        r.end = outer;
        break;
      }
      case key(3, LENGTH_DELIMITED):
        out.custom_metadata = r.bytes();
        break;
      case key(4, LENGTH_DELIMITED):
        out.data = r.bytes();
        break;
      default:
        r.skip(k);
    }
  }
  return out;
}

type BatchOptions = NonNullable<BatchAppendReq__Output["options"]>;
type AppendOptions = NonNullable<AppendReq__Output["options"]>;

/**
 * The fields AppendReq.Options and BatchAppendReq.Options share: the stream (1) and the
 * expected-revision oneof (2: a revision, 3: no_stream, 4: any, 5: stream_exists), which the two
 * messages name differently only for field 2 ("revision" and "stream_position"). Anything else is
 * skipped (BatchAppendReq's deadline, 6 and 7: nothing reads it, see the header).
 */
interface ExpectedOptions {
  stream_identifier: StreamIdentifier__Output | null;
  /** The oneof member read last (a oneof's last member wins); "number" is field 2. */
  choice?: "number" | "no_stream" | "any" | "stream_exists";
  number?: string;
}

function decodeExpectedOptions(r: ProtoReader): ExpectedOptions {
  const out: ExpectedOptions = { stream_identifier: null };
  while (r.pos < r.end) {
    const k = r.varint32();
    switch (k) {
      case key(1, LENGTH_DELIMITED):
        out.stream_identifier = embedded(r, decodeStreamIdentifier);
        break;
      case key(2, VARINT):
        out.choice = "number";
        out.number = uint64Text(r);
        break;
      case key(3, LENGTH_DELIMITED):
        empty(r);
        out.choice = "no_stream";
        break;
      case key(4, LENGTH_DELIMITED):
        empty(r);
        out.choice = "any";
        break;
      case key(5, LENGTH_DELIMITED):
        empty(r);
        out.choice = "stream_exists";
        break;
      default:
        r.skip(k);
    }
  }
  return out;
}

function decodeBatchOptions(r: ProtoReader): BatchOptions {
  const { stream_identifier, choice, number } = decodeExpectedOptions(r);
  const out: BatchOptions = { stream_identifier };
  if (choice === "number") {
    out.expected_stream_position = "stream_position";
    out.stream_position = number;
  } else if (choice !== undefined) {
    out.expected_stream_position = choice;
    out[choice] = {};
  }
  return out;
}

/** A BatchAppendReq, as proto-loader gives it (see the header for the deadline). */
export function decodeBatchAppendReq(bytes: Buffer): BatchAppendReq__Output {
  const r = readerFor(bytes);
  const out: BatchAppendReq__Output = {
    correlation_id: null,
    options: null,
    proposed_messages: [],
    is_final: false,
  };
  while (r.pos < r.end) {
    const k = r.varint32();
    switch (k) {
      case key(1, LENGTH_DELIMITED):
        out.correlation_id = embedded(r, decodeUuid);
        break;
      case key(2, LENGTH_DELIMITED):
        out.options = embedded(r, decodeBatchOptions);
        break;
      case key(3, LENGTH_DELIMITED):
        out.proposed_messages.push(embedded(r, decodeProposedMessage));
        break;
      case key(4, VARINT):
        out.is_final = r.uint64() !== 0;
        break;
      default:
        r.skip(k);
    }
  }
  return out;
}

function decodeAppendOptions(r: ProtoReader): AppendOptions {
  const { stream_identifier, choice, number } = decodeExpectedOptions(r);
  const out: AppendOptions = { stream_identifier };
  if (choice === "number") {
    out.expected_stream_revision = "revision";
    out.revision = number;
  } else if (choice !== undefined) {
    out.expected_stream_revision = choice;
    out[choice] = {};
  }
  return out;
}

/** An AppendReq (the options, or one proposed event), as proto-loader gives it. */
export function decodeAppendReq(bytes: Buffer): AppendReq__Output {
  const r = readerFor(bytes);
  const out: AppendReq__Output = {};
  while (r.pos < r.end) {
    const k = r.varint32();
    if (k === key(1, LENGTH_DELIMITED)) {
      if (out.content !== undefined) delete out.proposed_message;
      out.options = embedded(r, decodeAppendOptions);
      out.content = "options";
    } else if (k === key(2, LENGTH_DELIMITED)) {
      if (out.content !== undefined) delete out.options;
      out.proposed_message = embedded(r, decodeProposedMessage);
      out.content = "proposed_message";
    } else r.skip(k);
  }
  return out;
}

// ---------------------------------------------------------------- encoding
