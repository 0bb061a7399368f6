/**
 * `ess` through its gRPC server with pipelined calls, as an application with many concurrent
 * appends or reads would use it: one Streams.AppendSession and one Streams.ReadSession per load
 * generator process, the concurrent workers' appends (reads) multiplexed over them, as the Redis
 * row multiplexes its commands over one pipelined connection. The sessions run on the load
 * generator's cheaper transport (bench/grpc-load/load-client.ts). Event data goes as Payload,
 * sent without re-serializing.
 */
import type { CallContext } from "../../../src/operations/contract.js";
import { Payload } from "../../../src/contract/payload.js";
import type { AppendSession } from "../../../src/client/rpc-client.js";
import { createLoadClient, type LoadClient, type ReadSummarySession } from "../../grpc-load/load-client.js";
import { eventsFromStart } from "../../grpc-load/read-summary.js";
import type { SystemAdapter } from "../adapter.js";
import { eventType } from "../workload.js";

export class EssGrpcSessionAdapter implements SystemAdapter {
  private readonly client: LoadClient;
  private ctx: CallContext = { token: null };
  private session: AppendSession | null = null;
  private readSession: ReadSummarySession | null = null;

  constructor(
    address: string,
    private readonly password: string,
  ) {
    this.client = createLoadClient({ address, deadlineMs: 30_000 });
  }

  async login(): Promise<void> {
    const result = await this.client.login({ token: null }, { username: "admin", password: this.password });
    this.ctx = { token: result.access_token };
    this.session = this.client.openAppendSession(this.ctx);
    this.readSession = this.client.openReadSummarySession(this.ctx);
  }

  private requireSession(): AppendSession {
    if (this.session === null) throw new Error("not logged in");
    return this.session;
  }

  private requireReadSession(): ReadSummarySession {
    if (this.readSession === null) throw new Error("not logged in");
    return this.readSession;
  }

  async append(stream: string, expectedRevision: number, json: string): Promise<void> {
    await this.requireSession().append({
      stream_id: stream,
      event_type: eventType,
      data: Payload.fromText(json),
      expected_revision: expectedRevision < 0 ? "no_stream" : expectedRevision,
    });
  }

  async appendBatch(stream: string, jsons: string[]): Promise<void> {
    await this.requireSession().append({
      stream_id: stream,
      events: jsons.map((json) => ({ event_type: eventType, data: Payload.fromText(json) })),
      expected_revision: "no_stream",
    });
  }

  async read(stream: string, limit: number): Promise<number> {
    // As the unary row: the page's summary (count and revisions, checked), not its events built.
    return eventsFromStart(await this.requireReadSession().read({ stream_id: stream, limit }), stream);
  }

  async close(): Promise<void> {
    await this.session?.close();
    await this.readSession?.close();
    this.client.close();
  }
}
