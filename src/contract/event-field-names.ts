/**
 * The names an error gives the fields of an append's events: `events[3].data` for the fourth
 * event of a batch, `data` for the one event of a single-event append. Every event of every
 * append is checked with them, and names built per event cost several strings each time, so
 * each position's names are made once and kept (up to limits.appendEventsMax positions, the most
 * an append holds; past it they are built as needed, for the error that refuses the count).
 */
import { limits } from "../limits.js";

export interface EventFieldNames {
  /** The event itself: `events[3]` (empty for a single-event append). */
  readonly event: string;
  readonly event_type: string;
  readonly data: string;
  readonly data_base64: string;
  readonly metadata: string;
  readonly metadata_base64: string;
  readonly event_id: string;
  readonly content_type: string;
  readonly metadata_bytes: string;
}

function namesWithPrefix(event: string, prefix: string): EventFieldNames {
  return {
    event,
    event_type: `${prefix}event_type`,
    data: `${prefix}data`,
    data_base64: `${prefix}data_base64`,
    metadata: `${prefix}metadata`,
    metadata_base64: `${prefix}metadata_base64`,
    event_id: `${prefix}event_id`,
    content_type: `${prefix}content_type`,
    metadata_bytes: `${prefix}metadata_bytes`,
  };
}

/** The fields of a single-event append, named as they are (`data`). */
export const singleEventFieldNames: EventFieldNames = namesWithPrefix("", "");

const byPosition: EventFieldNames[] = [];

/** The fields of the event at `index` in an append's `events`, named `events[index].field`. */
export function eventFieldNames(index: number): EventFieldNames {
  const known = byPosition[index];
  if (known !== undefined) return known;
  const names = namesWithPrefix(`events[${index}]`, `events[${index}].`);
  if (Number.isInteger(index) && index >= 0 && index < limits.appendEventsMax) byPosition[index] = names;
  return names;
}
