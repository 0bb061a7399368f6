/**
 * A small in-memory StorageEngine for the subscription tests that need to control timing
 * (a read that waits until the test lets it go, to force an append to race a catch-up page).
 * It implements the parts subscriptions use: append, readStream, readAll, getStreamInfo,
 * setRetention, deleteStream, status and onAppend. Positions start at 1, like the log engine.
 * Everything else is refused. Tests of behaviour users rely on run on the real log engine too.
 */
import { streamNotFound } from "../../src/errors.js";
import { payloadContent } from "../../src/storage/validate-input.js";
import { planReadAll } from "../../src/storage/read-page.js";
import type {
  AppendResult,
  EventRecord,
  ReadAllResult,
  ReadStreamResult,
  Retention,
  StorageStatus,
  StreamInfo,
} from "../../src/contract/bodies.js";
import type {
  AppendInput,
  AppendListener,
  AuthStore,
  ReadAllInput,
  ReadStreamInput,
  StorageEngine,
} from "../../src/storage/engine.js";

interface MemoryStream {
  tenant_id: string;
  stream_id: string;
  events: EventRecord[];
  retention: Retention;
  deletedBefore: number;
  deleted: boolean;
}

export class MemoryEngine implements StorageEngine {
  readonly kind = "log" as const;
  private readonly streams = new Map<string, MemoryStream>();
  private readonly all: { tenant_id: string; record: EventRecord }[] = [];
  private readonly listeners = new Set<AppendListener>();
  private lastPosition = 0;
  /** When set, every read waits for this promise first. */
  readGate: Promise<void> | null = null;
  reads = 0;

  get auth(): AuthStore {
    throw new Error("not supported by the memory engine");
  }

  async append(input: AppendInput): Promise<AppendResult> {
    await Promise.resolve();
    const key = `${input.tenant_id}\0${input.stream_id}`;
    let stream = this.streams.get(key);
    if (stream === undefined) {
      stream = {
        tenant_id: input.tenant_id,
        stream_id: input.stream_id,
        events: [],
        retention: { max_age_seconds: null, max_count: null, truncate_before: null },
        deletedBefore: 0,
        deleted: false,
      };
      this.streams.set(key, stream);
    }
    if (stream.deleted) {
      stream.deleted = false;
      stream.deletedBefore = stream.events.length;
    }
    const first = stream.events.length;
    const firstPosition = this.lastPosition + 1;
    for (const e of input.events) {
      const record: EventRecord = {
        stream_id: input.stream_id,
        revision: stream.events.length,
        position: ++this.lastPosition,
        event_id: e.event_id,
        event_type: e.event_type,
        data: payloadContent(e.data),
        metadata: payloadContent(e.metadata),
        created_at: new Date().toISOString(),
        content_type:
          typeof payloadContent(e.data) === "string" ? "application/json" : "application/octet-stream",
      };
      stream.events.push(record);
      this.all.push({ tenant_id: input.tenant_id, record });
    }
    const result = {
      stream_id: input.stream_id,
      first_revision: first,
      last_revision: stream.events.length - 1,
      position: this.lastPosition,
      count: input.events.length,
    };
    for (const listener of this.listeners) {
      listener({
        tenant_id: input.tenant_id,
        stream_id: input.stream_id,
        first_revision: first,
        last_revision: result.last_revision,
        first_position: firstPosition,
        last_position: this.lastPosition,
      });
    }
    return result;
  }

  private firstReadable(stream: MemoryStream): number {
    let first = stream.deletedBefore;
    if (stream.retention.truncate_before !== null) first = Math.max(first, stream.retention.truncate_before);
    if (stream.retention.max_count !== null)
      first = Math.max(first, stream.events.length - stream.retention.max_count);
    return first;
  }

  async readStream(input: ReadStreamInput): Promise<ReadStreamResult> {
    this.reads += 1;
    if (this.readGate !== null) await this.readGate;
    await Promise.resolve();
    const stream = this.streams.get(`${input.tenant_id}\0${input.stream_id}`);
    if (stream === undefined || stream.deleted) throw streamNotFound(input.stream_id);
    const from = Math.max(input.from_revision ?? 0, this.firstReadable(stream));
    const events = stream.events.slice(from, from + input.limit);
    const end = from + events.length >= stream.events.length;
    return {
      stream_id: input.stream_id,
      direction: "forward",
      events,
      next_revision: end ? null : from + events.length,
      is_end: end,
    };
  }

  async readAll(input: ReadAllInput): Promise<ReadAllResult> {
    this.reads += 1;
    if (this.readGate !== null) await this.readGate;
    await Promise.resolve();
    const events: EventRecord[] = [];
    // Forward only (what subscriptions read), with the filter and the skip bound of the engines.
    const plan = planReadAll(input);
    let skipped = 0;
    let index = Math.max(0, (plan.from ?? 0) - 1);
    for (; index < this.all.length && events.length < input.limit && skipped < plan.skipMax; index++) {
      const entry = this.all[index];
      if (entry === undefined || entry.tenant_id !== input.tenant_id) continue;
      const stream = this.streams.get(`${entry.tenant_id}\0${entry.record.stream_id}`);
      const record = entry.record;
      if (
        stream === undefined ||
        stream.deleted ||
        record.revision < this.firstReadable(stream) ||
        (plan.matcher !== null &&
          !(plan.matcher.stream(record.stream_id) && plan.matcher.type(record.event_type)))
      ) {
        skipped++;
        continue;
      }
      events.push(record);
    }
    const end = index >= this.all.length;
    return { events, next_position: end ? null : index + 1, is_end: end };
  }

  async getStreamInfo(tenantId: string, streamId: string): Promise<StreamInfo | null> {
    await Promise.resolve();
    const stream = this.streams.get(`${tenantId}\0${streamId}`);
    if (stream === undefined) return null;
    const first = this.firstReadable(stream);
    const now = new Date().toISOString();
    return {
      stream_id: streamId,
      tenant_id: tenantId,
      event_count: stream.deleted ? 0 : Math.max(0, stream.events.length - first),
      first_revision: stream.deleted || first >= stream.events.length ? null : first,
      last_revision: stream.events.length === 0 ? null : stream.events.length - 1,
      bytes: 0,
      created_at: now,
      updated_at: now,
      deleted: stream.deleted,
      tombstoned: false,
      retention: stream.retention,
    };
  }

  async setRetention(tenantId: string, streamId: string, retention: Retention): Promise<StreamInfo> {
    const stream = this.streams.get(`${tenantId}\0${streamId}`);
    if (stream === undefined) throw streamNotFound(streamId);
    stream.retention = retention;
    return (await this.getStreamInfo(tenantId, streamId)) as StreamInfo;
  }

  async deleteStream(tenantId: string, streamId: string): Promise<StreamInfo> {
    const stream = this.streams.get(`${tenantId}\0${streamId}`);
    if (stream === undefined) throw streamNotFound(streamId);
    stream.deleted = true;
    return (await this.getStreamInfo(tenantId, streamId)) as StreamInfo;
  }

  async status(): Promise<StorageStatus> {
    await Promise.resolve();
    return {
      engine: "log",
      events_total: this.all.length,
      streams_total: this.streams.size,
      bytes_total: 0,
      last_position: this.lastPosition,
      last_scavenge: null,
    };
  }

  onAppend(listener: AppendListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  isWritable(): boolean {
    return true;
  }

  isDamaged(): boolean {
    return false;
  }

  async close(): Promise<void> {}

  listStreams(): never {
    throw new Error("not supported by the memory engine");
  }
  getTenantUsage(): never {
    throw new Error("not supported by the memory engine");
  }
  listTenants(): never {
    throw new Error("not supported by the memory engine");
  }
  largestStreams(): never {
    throw new Error("not supported by the memory engine");
  }
  verify(): never {
    throw new Error("not supported by the memory engine");
  }
  scavenge(): never {
    throw new Error("not supported by the memory engine");
  }
  getStreamMetadata(): never {
    throw new Error("not supported by the memory engine");
  }
  setStreamMetadata(): never {
    throw new Error("not supported by the memory engine");
  }
}
