/**
 * `ess` through its KurrentDB listener, driven by KurrentDB's official Node client
 * (@kurrent/kurrentdb-client), as an application written for KurrentDB would use it: appends over
 * the BatchAppend stream the client picks when the server lists it, reads through the client's
 * native bridge (its own HTTP/2 connection). The listener runs with an anonymous user
 * (`tls=false`: the client sends no credentials on appends), its reads log in with Basic.
 */
import { KurrentDBClient, NO_STREAM, jsonEvent, type JSONType } from "@kurrent/kurrentdb-client";
import type { SystemAdapter } from "../adapter.js";
import { eventType } from "../workload.js";

export class EssKurrentAdapter implements SystemAdapter {
  private readonly client: KurrentDBClient;

  constructor(address: string, password: string) {
    this.client = KurrentDBClient.connectionString`kurrentdb://admin:${password}@${address}?tls=false`;
  }

  async append(stream: string, expectedRevision: number, json: string): Promise<void> {
    await this.client.appendToStream(
      stream,
      jsonEvent({ type: eventType, data: JSON.parse(json) as JSONType }),
      {
        streamState: expectedRevision < 0 ? NO_STREAM : BigInt(expectedRevision),
      },
    );
  }

  async appendBatch(stream: string, jsons: string[]): Promise<void> {
    await this.client.appendToStream(
      stream,
      jsons.map((json) => jsonEvent({ type: eventType, data: JSON.parse(json) as JSONType })),
      { streamState: NO_STREAM },
    );
  }

  async read(stream: string, limit: number): Promise<number> {
    let count = 0;
    for await (const _event of this.client.readStream(stream, { maxCount: limit })) count++;
    return count;
  }

  async close(): Promise<void> {
    await this.client.dispose();
  }
}
