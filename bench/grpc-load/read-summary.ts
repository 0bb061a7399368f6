/**
 * What the load generator checks of a read's answer, read straight from the ReadResult message
 * without building its events: the stream id, how many events came, and their revisions (the
 * first, the last, and whether each is one more than the one before). The product client's
 * decode (src/rpc/codec/read-results.ts) makes an EventRecord per event, with its strings and
 * its data's text: for a 100-event read that, and the garbage it leaves, was most of the load
 * generator's CPU per read, taken from the server it measures on a machine of few cores. A
 * benchmark that does not check its answers can lie, so every event is still looked at: its
 * revision is read (the field the server writes second, so a few bytes per event), the rest is
 * skipped by its length.
 *
 *   ReadResult  { 1: stream_id string, 2: direction string, 3: events EventRecord (repeated),
 *                 4: next_revision uint64, 5: is_end bool }
 *   EventRecord { 1: stream_id, 2: revision uint64, 3: position, ... }
 *
 * Malformed protobuf throws as the product decoders do (src/rpc/codec/wire.ts's ProtoReader).
 */
import { LENGTH_DELIMITED, VARINT, key, readerFor, type ProtoReader } from "../../src/rpc/codec/wire.js";
import { decodeReadSessionResponse, type DecodedSessionAnswer } from "../../src/rpc/session-codec.js";

export interface ReadSummary {
  stream_id: string;
  /** Events in the page. */
  events: number;
  /** Revisions of the first and the last event (-1 when the page is empty). */
  first_revision: number;
  last_revision: number;
  /** Each event's revision is the one before it plus one (true for an empty page). */
  consecutive: boolean;
}

const readResultKeys = { stream_id: key(1, LENGTH_DELIMITED), events: key(3, LENGTH_DELIMITED) };
const revisionKey = key(2, VARINT);

/** An EventRecord's revision (0, the default, when it has none); leaves r at the event's end. */
function eventRevision(r: ProtoReader, end: number): number {
  const outer = r.end;
  r.end = end;
  let revision = 0;
  while (r.pos < end) {
    const fieldKey = r.varint32();
    if (fieldKey === revisionKey) {
      revision = r.uint64();
      // The server writes each field once (the decoders' "last value wins" does not arise).
      break;
    }
    r.skip(fieldKey);
  }
  r.pos = end;
  r.end = outer;
  return revision;
}

export function summarizeReadResult(buf: Buffer): ReadSummary {
  const r = readerFor(buf);
  const summary: ReadSummary = {
    stream_id: "",
    events: 0,
    first_revision: -1,
    last_revision: -1,
    consecutive: true,
  };
  while (r.pos < r.end) {
    const fieldKey = r.varint32();
    if (fieldKey === readResultKeys.events) {
      const revision = eventRevision(r, r.delimitedEnd());
      if (summary.events === 0) summary.first_revision = revision;
      else if (revision !== summary.last_revision + 1) summary.consecutive = false;
      summary.last_revision = revision;
      summary.events++;
    } else if (fieldKey === readResultKeys.stream_id) summary.stream_id = r.string();
    else r.skip(fieldKey);
  }
  return summary;
}

/** ReadSessionResponse { 1: correlation_id, 2: result ReadResult | 3: error SessionError }. */
const sessionKeys = { correlation_id: key(1, VARINT), result: key(2, LENGTH_DELIMITED) };

/**
 * A ReadSession answer with its result summarized. An answer without a result (an error, or
 * neither) is rare and small: the product decoder reads it, for the same error as the product's.
 */
export function summarizeReadSessionAnswer(buf: Buffer): DecodedSessionAnswer<ReadSummary> {
  const r = readerFor(buf);
  let correlationId = 0;
  let result: ReadSummary | undefined;
  while (r.pos < r.end) {
    const fieldKey = r.varint32();
    if (fieldKey === sessionKeys.correlation_id) correlationId = r.uint64();
    else if (fieldKey === sessionKeys.result) {
      const end = r.delimitedEnd();
      result = summarizeReadResult(buf.subarray(r.pos, end));
      r.pos = end;
    } else r.skip(fieldKey);
  }
  if (result !== undefined) return { correlation_id: correlationId, result };
  const answer = decodeReadSessionResponse(buf);
  return { correlation_id: answer.correlation_id, error: answer.error };
}

/**
 * The events of a read of `stream` from its start, as the summary shows them: throws unless the
 * page is of that stream and its revisions are 0, 1, 2, … in order; returns how many came (the
 * caller checks that against what it asked for).
 */
export function eventsFromStart(summary: ReadSummary, stream: string): number {
  if (summary.stream_id !== stream)
    throw new Error(`a read of ${stream} answered the page of '${summary.stream_id}'`);
  if (summary.events > 0 && (summary.first_revision !== 0 || !summary.consecutive))
    throw new Error(
      `a read of ${stream} from its start answered revisions ${summary.first_revision}..${summary.last_revision}` +
        (summary.consecutive ? "" : ", not in order"),
    );
  return summary.events;
}
