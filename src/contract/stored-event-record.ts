/**
 * An EventRecord over the bytes an engine stored it as, for the transports that write those
 * bytes anyway: the gRPC codecs copy an event's id, type, metadata and data straight into the
 * message (src/rpc/codec/read-results.ts), the REST serializer takes the text of each field once
 * (src/rest/serialize.ts). Decoding event data and metadata to JS strings only for a transport to
 * encode them back to the same UTF-8 was a large part of a 100-event read
 * (docs/performance-findings.md, "Stored-bytes reads"). The log engine hands these out when a
 * read asks for them (ReadStreamInput.stored_bytes: the operations do, for every read they
 * serve, since a transport writes its answer at once); any other reader keeps getting plain
 * records. It lives in the contract so that the transports read it without knowing an engine.
 *
 * Invariants:
 * - `bytes` never changes while a record refers to it: an engine hands out only buffers it
 *   never writes again below the record's end (the log engine's cached blocks are immutable
 *   below their valid end, and a block re-read or dropped is a new buffer, never a reused one).
 * - The text fields read exactly as the plain record's would: event_type, and metadata and data
 *   unless `binary` marks them as bytes, are valid UTF-8 (the engine wrote them from checked
 *   text), the event id is one byte per character (latin1, an ASCII UUID in practice),
 *   created_at is `createdAtMs` as RFC 3339. A part `binary` marks reads as a Buffer (a copy).
 * - The getters decode on every access (nothing is cached): a record is read once, by a codec
 *   through the offsets, or by a caller through the getters.
 * - A record holds on to the whole buffer it came from (a cached block): it is for a page that is
 *   written out at once, not for events kept around.
 */
import type { RepeatedText, SlicingBuffer } from "../buffer-text.js";
import { binaryContentType, jsonContentType, type ContentType, type EventRecord } from "./bodies.js";

/** StoredEventRecord.binary: the event's data is bytes (content type application/octet-stream). */
export const BINARY_DATA = 1;
/** StoredEventRecord.binary: the event's metadata is bytes (appended as bytes, not JSON). */
export const BINARY_METADATA = 2;

const isoCache = { ms: -1, iso: "" };

/**
 * Milliseconds since the epoch as RFC 3339 with milliseconds, UTC. The last value is kept: the
 * events of one append batch share their creation time, so a page mostly formats it once.
 */
export function isoFromMs(ms: number): string {
  if (ms !== isoCache.ms) {
    isoCache.ms = ms;
    isoCache.iso = new Date(ms).toISOString();
  }
  return isoCache.iso;
}

/**
 *  Where the fields sit in `bytes` (the event id may be anywhere; the other three follow each other):
 *   eventIdStart  eventIdEnd        eventTypeStart   metadataStart   dataStart   dataEnd
 *   | event id   |   ...            | event type     | metadata      | data      |
 */
export class StoredEventRecord implements EventRecord {
  constructor(
    readonly stream_id: string,
    readonly revision: number,
    readonly position: number,
    readonly createdAtMs: number,
    readonly bytes: Buffer,
    readonly eventIdStart: number,
    readonly eventIdEnd: number,
    readonly eventTypeStart: number,
    readonly metadataStart: number,
    readonly dataStart: number,
    readonly dataEnd: number,
    /** BINARY_DATA and BINARY_METADATA: which of the payload parts are bytes; 0 for a JSON event. */
    readonly binary = 0,
  ) {}

  get content_type(): ContentType {
    return (this.binary & BINARY_DATA) === 0 ? jsonContentType : binaryContentType;
  }

  get event_id(): string {
    return (this.bytes as SlicingBuffer).latin1Slice(this.eventIdStart, this.eventIdEnd);
  }

  get event_type(): string {
    return (this.bytes as SlicingBuffer).utf8Slice(this.eventTypeStart, this.metadataStart);
  }

  get data(): string | Buffer {
    if ((this.binary & BINARY_DATA) !== 0)
      return Buffer.from(this.bytes.subarray(this.dataStart, this.dataEnd));
    return (this.bytes as SlicingBuffer).utf8Slice(this.dataStart, this.dataEnd);
  }

  get metadata(): string | Buffer {
    if ((this.binary & BINARY_METADATA) !== 0) {
      return Buffer.from(this.bytes.subarray(this.metadataStart, this.dataStart));
    }
    return (this.bytes as SlicingBuffer).utf8Slice(this.metadataStart, this.dataStart);
  }

  /** The data as JSON text (for a JSON event: `binary` without BINARY_DATA). */
  get dataText(): string {
    return (this.bytes as SlicingBuffer).utf8Slice(this.dataStart, this.dataEnd);
  }

  get created_at(): string {
    return isoFromMs(this.createdAtMs);
  }

  /** The event type, through `last`: the same bytes as the last one give back the same string. */
  eventTypeThrough(last: RepeatedText): string {
    return last.of(this.bytes as SlicingBuffer, this.eventTypeStart, this.metadataStart);
  }

  /** The metadata text, through `last` (most events of a page repeat one, often "{}"); JSON metadata only. */
  metadataThrough(last: RepeatedText): string {
    return last.of(this.bytes as SlicingBuffer, this.metadataStart, this.dataStart);
  }

  /** Bytes of the event's metadata and data as stored (UTF-8). */
  get payloadBytes(): number {
    return this.dataEnd - this.metadataStart;
  }

  /** The plain record (what a read without stored_bytes returns), e.g. to compare or serialize. */
  toJSON(): EventRecord {
    return {
      stream_id: this.stream_id,
      revision: this.revision,
      position: this.position,
      event_id: this.event_id,
      event_type: this.event_type,
      data: this.data,
      metadata: this.metadata,
      created_at: this.created_at,
      content_type: this.content_type,
    };
  }
}

/**
 * About the bytes of an event's metadata and data (what a read page's byte budget counts):
 * exact for a StoredEventRecord and for bytes, the strings' lengths otherwise (UTF-16 units:
 * below the UTF-8 size for text outside ASCII, which is enough for a memory bound).
 */
export function eventPayloadBytes(event: EventRecord): number {
  if (event instanceof StoredEventRecord) return event.payloadBytes;
  return event.metadata.length + event.data.length;
}
