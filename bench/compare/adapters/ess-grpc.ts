/**
 * `ess` through its gRPC server, with the project's own client (src/client/rpc-client.ts) on the
 * load generator's cheaper transport for its calls (bench/grpc-load/load-client.ts), as an
 * application would use it: one channel (HTTP/2 multiplexes the concurrent calls), log in once,
 * append with an exact expected_revision, read 100 events. Event data goes as Payload, so the
 * client sends the JSON text's bytes without re-serializing them.
 */
import type { CallContext } from "../../../src/operations/contract.js";
import { Payload } from "../../../src/contract/payload.js";
import { createLoadClient, type LoadClient } from "../../grpc-load/load-client.js";
import { eventsFromStart } from "../../grpc-load/read-summary.js";
import type { SystemAdapter } from "../adapter.js";
import { eventType } from "../workload.js";

export class EssGrpcAdapter implements SystemAdapter {
  private readonly client: LoadClient;
  private ctx: CallContext = { token: null };

  constructor(
    address: string,
    private readonly password: string,
  ) {
    this.client = createLoadClient({ address, deadlineMs: 30_000 });
  }

  async login(): Promise<void> {
    const result = await this.client.login({ token: null }, { username: "admin", password: this.password });
    this.ctx = { token: result.access_token };
  }

  async append(stream: string, expectedRevision: number, json: string): Promise<void> {
    await this.client.append(this.ctx, {
      stream_id: stream,
      event_type: eventType,
      data: Payload.fromText(json),
      expected_revision: expectedRevision < 0 ? "no_stream" : expectedRevision,
    });
  }

  async appendBatch(stream: string, jsons: string[]): Promise<void> {
    await this.client.append(this.ctx, {
      stream_id: stream,
      events: jsons.map((json) => ({ event_type: eventType, data: Payload.fromText(json) })),
      expected_revision: "no_stream",
    });
  }

  async read(stream: string, limit: number): Promise<number> {
    // The page's summary (count and revisions, checked), not its events built: a load generator
    // that decodes every event takes that CPU from the server it measures.
    return eventsFromStart(await this.client.readSummary(this.ctx, { stream_id: stream, limit }), stream);
  }

  close(): Promise<void> {
    this.client.close();
    return Promise.resolve();
  }
}
