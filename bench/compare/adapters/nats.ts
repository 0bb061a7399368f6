/**
 * NATS JetStream as an event store: one JetStream stream with file storage holds every event
 * stream, one subject per event stream. An append publishes with the expected last sequence of
 * its subject (JetStream's own optimistic concurrency); a read creates an ordered consumer
 * filtered to the subject, fetches `limit` messages and deletes the consumer, the usual way to
 * read one subject's history. Durability is the server's sync_interval, chosen per row.
 */
import { connect, headers, type JetStreamClient, type NatsConnection } from "nats";
import type { SystemAdapter } from "../adapter.js";
import { eventType } from "../workload.js";

const encoder = new TextEncoder();

export function natsSubject(stream: string): string {
  // Subject tokens may not hold '.', '*', '>' or spaces; the workload's names have none of them
  // except '-', which is fine.
  return `essbench.${stream}`;
}

export class NatsAdapter implements SystemAdapter {
  private connection: NatsConnection | null = null;
  private js: JetStreamClient | null = null;
  /** Stream sequence of the last message of each subject: what the next append expects. */
  private readonly lastSequence = new Map<string, number>();

  constructor(
    private readonly port: number,
    private readonly streamName: string,
  ) {}

  async connect(): Promise<void> {
    this.connection = await connect({ servers: `127.0.0.1:${this.port}` });
    this.js = this.connection.jetstream();
  }

  private client(): JetStreamClient {
    if (this.js === null) throw new Error("not connected");
    return this.js;
  }

  async append(stream: string, expectedRevision: number, json: string): Promise<void> {
    const expected = expectedRevision < 0 ? 0 : this.lastSequence.get(stream);
    if (expected === undefined) throw new Error(`no known last sequence for ${stream}`);
    const h = headers();
    h.set("Ess-Event-Type", eventType);
    const ack = await this.client().publish(natsSubject(stream), encoder.encode(json), {
      headers: h,
      expect: { lastSubjectSequence: expected },
    });
    this.lastSequence.set(stream, ack.seq);
  }

  async appendBatch(stream: string, jsons: string[]): Promise<void> {
    // JetStream before 2.11's atomic batches has no multi-message publish: publish one after
    // another, each expecting the previous one. The driver preloads many streams at once.
    let expected = 0;
    for (const json of jsons) {
      const h = headers();
      h.set("Ess-Event-Type", eventType);
      const ack = await this.client().publish(natsSubject(stream), encoder.encode(json), {
        headers: h,
        expect: { lastSubjectSequence: expected },
      });
      expected = ack.seq;
    }
    this.lastSequence.set(stream, expected);
  }

  async read(stream: string, limit: number): Promise<number> {
    const consumer = await this.client().consumers.get(this.streamName, {
      filterSubjects: natsSubject(stream),
    });
    let count = 0;
    try {
      const messages = await consumer.fetch({ max_messages: limit, expires: 5000 });
      for await (const message of messages) {
        if (message.data.length === 0) throw new Error("empty message");
        count++;
        if (count >= limit) break;
      }
    } finally {
      await consumer.delete().catch(() => false);
    }
    return count;
  }

  async close(): Promise<void> {
    await this.connection?.drain();
  }
}
