/** What the crash-test child and parent agree on: the streams, the data of each event, the ack line. */

export interface CrashAck {
  tenant: string;
  stream: string;
  batch: string;
  event_ids: string[];
  first_revision: number;
  last_revision: number;
  position: number;
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
