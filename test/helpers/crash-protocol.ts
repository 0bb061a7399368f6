/**
 * What the crash-test child and parent agree on: the streams, the data of each event, and the
 * lines the child prints (an intent before each append, an ack after it resolved).
 */
import type { ExpectedRevision } from "../../src/contract/bodies.js";
import type { EventToAppend } from "../../src/storage/engine.js";

/** An append the child is about to send: enough to send exactly the same request again. */
export interface CrashIntent {
  tenant: string;
  stream: string;
  batch: string;
  event_ids: string[];
  expected: ExpectedRevision;
}

/** Printed after an append resolved (also for a retried intent, with `retried: true`). */
export interface CrashAck {
  tenant: string;
  stream: string;
  batch: string;
  event_ids: string[];
  first_revision: number;
  last_revision: number;
  position: number;
  retried?: boolean;
}

/** The events of an intent, rebuilt byte for byte. */
export function crashEvents(intent: Omit<CrashIntent, "expected">): EventToAppend[] {
  const size = intent.event_ids.length;
  return intent.event_ids.map((event_id, index) => ({
    event_id,
    event_type: size === 1 ? "single" : "batched",
    data: crashEventData(intent.tenant, intent.stream, intent.batch, index, size),
    metadata: "{}",
  }));
}

/** Streams with one writer each, using exact expected revisions. */
export const crashStreams: { tenant: string; stream: string }[] = [
  { tenant: "acme", stream: "orders-1" },
  { tenant: "acme", stream: "orders-2" },
  { tenant: "acme", stream: "orders-3" },
  { tenant: "globex", stream: "orders-1" },
  { tenant: "globex", stream: "payments" },
];

/** One stream two writers share with expected revision "any". */
export const crashSharedStream = { tenant: "globex", stream: "shared" };

export const crashTenants = ["acme", "globex"];

/** The exact JSON text of an event; the parent rebuilds it to compare byte for byte. */
export function crashEventData(
  tenant: string,
  stream: string,
  batch: string,
  index: number,
  size: number,
): string {
  return JSON.stringify({ tenant, stream, batch, index, size, pad: "é".repeat(20 + ((index * 37) % 200)) });
}
