/**
 * An EventRecord that keeps its text fields as the bytes the engine stored them as, for a
 * caller that writes bytes anyway (the gRPC read codecs, src/rpc/codec.ts). Decoding event
 * data and metadata to JS strings only for the codec to encode them back to the same UTF-8 was
 * a large part of a 100-event gRPC read (docs/performance-findings.md, "Stored-bytes reads");
 * an engine that can hand out the stored bytes does so when a read asks for them
 * (ReadStreamInput.stored_bytes), and any other reader keeps getting plain records.
 *
 * Invariants:
 * - `bytes` never changes while a record refers to it: an engine hands out only buffers it
 *   never writes again below the record's end (the log engine's cached blocks are immutable
 *   below their valid end, and a block re-read or dropped is a new buffer, never a reused one).
 * - The text fields read exactly as the plain record's would: event_type, metadata and data
 *   are valid UTF-8 (the engine wrote them from JS strings), the event id is one byte per
 *   character (latin1, an ASCII UUID in practice), created_at is `createdAtMs` as RFC 3339.
 * - The getters decode on every access (nothing is cached): a record is read once, by the codec
 *   through the offsets, or by a caller through the getters.
 */
import type { SlicingBuffer } from "../buffer-text.js";
import type { EventRecord } from "../contract/bodies.js";

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
  ) {}

  get event_id(): string {
    return (this.bytes as SlicingBuffer).latin1Slice(this.eventIdStart, this.eventIdEnd);
  }

  get event_type(): string {
    return (this.bytes as SlicingBuffer).utf8Slice(this.eventTypeStart, this.metadataStart);
  }

  get data(): string {
    return (this.bytes as SlicingBuffer).utf8Slice(this.dataStart, this.dataEnd);
  }

  get metadata(): string {
    return (this.bytes as SlicingBuffer).utf8Slice(this.metadataStart, this.dataStart);
  }

  get created_at(): string {
    return isoFromMs(this.createdAtMs);
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
    };
  }
}

/**
 * About the bytes of an event's metadata and data (what a read page's byte budget counts):
 * exact for a StoredEventRecord, the strings' lengths otherwise (UTF-16 units: below the UTF-8
 * size for text outside ASCII, which is enough for a memory bound).
 */
export function eventPayloadBytes(event: EventRecord): number {
  if (event instanceof StoredEventRecord) return event.payloadBytes;
  return event.metadata.length + event.data.length;
}
