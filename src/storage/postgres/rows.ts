/**
 * The rows the postgres engine reads (stream, event and tenant rows, as the driver returns them
 * with the engine's type parsers), and how each becomes a body of the contract.
 */
import {
  binaryContentType,
  jsonContentType,
  type EventRecord,
  type StreamInfo,
  type StreamSummary,
  type TenantUsage,
} from "../../contract/bodies.js";

export interface StreamRow {
  tenant_id: string;
  stream_id: string;
  last_revision: number;
  bytes: number;
  created_at: Date;
  updated_at: Date;
  deleted: boolean;
  tombstoned: boolean;
  max_age_seconds: number | null;
  max_count: number | null;
  truncate_before: number | null;
  first_stored_revision: number;
  first_visible: number;
}

export interface EventRow {
  position: number;
  stream_id: string;
  revision: number;
  event_id: string;
  event_type: string;
  /** JSON text; '' when data_bytes holds the data. */
  data: string;
  /** JSON text; '' when metadata_bytes holds the metadata. */
  metadata: string;
  /** A binary event's data (migration 2); null for a JSON event. */
  data_bytes: Buffer | null;
  /** Metadata appended as bytes; null for JSON metadata. */
  metadata_bytes: Buffer | null;
  /** Already RFC 3339 text (eventColumnsSql). */
  created_at: string;
  /** The row's checksum written at append (checksum.ts); bigint, so it may arrive as text. */
  checksum: number | string;
}

export interface TenantRow {
  tenant_id: string;
  streams: number;
  events: number;
  bytes: number;
  appends_total: number;
  reads_total: number;
  last_append_at: Date | null;
}

export function toEvent(row: EventRow): EventRecord {
  return {
    stream_id: row.stream_id,
    revision: row.revision,
    position: row.position,
    event_id: row.event_id,
    event_type: row.event_type,
    data: row.data_bytes ?? row.data,
    metadata: row.metadata_bytes ?? row.metadata,
    created_at: row.created_at,
    content_type: row.data_bytes === null ? jsonContentType : binaryContentType,
  };
}

function readableCount(row: StreamRow): number {
  return Math.max(0, row.last_revision + 1 - row.first_visible);
}

export function toInfo(row: StreamRow): StreamInfo {
  const count = readableCount(row);
  return {
    stream_id: row.stream_id,
    tenant_id: row.tenant_id,
    event_count: count,
    first_revision: count > 0 ? row.first_visible : null,
    last_revision: row.last_revision >= 0 ? row.last_revision : null,
    bytes: row.bytes,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    deleted: row.deleted,
    tombstoned: row.tombstoned,
    retention: {
      max_age_seconds: row.max_age_seconds,
      max_count: row.max_count,
      truncate_before: row.truncate_before,
    },
  };
}

export function toSummary(row: StreamRow): StreamSummary {
  return {
    stream_id: row.stream_id,
    tenant_id: row.tenant_id,
    event_count: readableCount(row),
    last_revision: row.last_revision >= 0 ? row.last_revision : null,
    bytes: row.bytes,
    updated_at: row.updated_at.toISOString(),
    deleted: row.deleted,
  };
}

export function toUsage(row: TenantRow, pendingReads: number): TenantUsage {
  return {
    tenant_id: row.tenant_id,
    streams: row.streams,
    events: row.events,
    bytes: row.bytes,
    appends_total: row.appends_total,
    reads_total: row.reads_total + pendingReads,
    last_append_at: row.last_append_at ? row.last_append_at.toISOString() : null,
  };
}
