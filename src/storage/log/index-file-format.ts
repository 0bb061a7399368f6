/**
 * The index file's format: a sealed segment's index (segment-index.ts), written once next to it
 * as `seg-NNNNNNNNNN.idx` (./index-file-encoding.ts) and read back through a bounded block cache
 * (./segment-index-file.ts).
 *
 *  0        8        12       16       20         24
 *  +--------+--------+--------+--------+----------+------+--------------+-----+------ ... ----+
 *  | magic  | crc32c | jsonL  | blocks | bodyStart| JSON | block crc32c | pad | body (columns) |
 *  +--------+--------+--------+--------+----------+------+--------------+-----+------ ... ----+
 *  crc32c covers [12, bodyStart); each 32 KiB block of the body has its own crc32c.
 *
 * The JSON holds what start-up needs (the segment it describes: number, generation and size;
 * slots, tenants, metadata records, totals) and where each column of the body starts. Columns
 * (8-byte aligned, little-endian): by position (offset u32, slot u32), by stream run (position
 * f64, offset u32, created_at f64), tenant positions (f64), and event-id fingerprints sorted by
 * their low lane, then position (low lane u32, high lane u32, position f64; the two lanes are
 * fingerprint-set.ts's).
 *
 * Format versions (the JSON's `version`): 1 kept one 32-bit fingerprint lane; 2 (issue 29) adds
 * the high lane. A file of another version is rebuilt from its segment, as a stale one is.
 *
 * The log is the truth: an index file is derived data, so a missing, stale or damaged one costs
 * a rebuild from its segment, never an event.
 */
import path from "node:path";
import type { MetaEntry, SlotInfo, TenantSlotInfo } from "./segment-index.js";

export const MAGIC = "ESSIDX01";
/** The JSON's `version` this code writes and reads (see the file comment). */
export const FORMAT_VERSION = 2;
export const HEAD_BYTES = 24;
export const BLOCK_BITS = 15;
export const BLOCK_BYTES = 1 << BLOCK_BITS;

export type ColumnName =
  | "posOffsets"
  | "posSlots"
  | "runPositions"
  | "runOffsets"
  | "runCreatedAt"
  | "tenantPositions"
  | "idFingerprints"
  | "idFingerprintsHigh"
  | "idPositions";

export interface IndexJson {
  version: typeof FORMAT_VERSION;
  segmentNo: number;
  generation: number;
  basePosition: number;
  /** Bytes of the segment file the index was built from. */
  segmentBytes: number;
  span: number;
  events: number;
  bytes: number;
  maxCreatedAtMs: number;
  slots: (SlotInfo & { runStart: number })[];
  tenants: (TenantSlotInfo & { listStart: number; count: number })[];
  metas: MetaEntry[];
  /** Byte offset in the body and element count of each column. */
  columns: Record<ColumnName, [number, number]>;
  /**
   * crc32c of the two fingerprint columns, from the start of the low lane's to the end of the
   * high lane's (read whole after start-up to fill the resident set).
   */
  fingerprintsCrc: number;
  /** Bytes of the body (the file is exactly bodyStart + bodyBytes long). */
  bodyBytes: number;
}

/** The index file's name for a segment file's name. */
export function indexFileName(segmentFileName: string): string {
  return segmentFileName.replace(/\.log$/, ".idx");
}

/** The index file's path for a segment file's path. */
export function indexFilePath(dir: string, segmentName: string): string {
  return path.join(dir, indexFileName(segmentName));
}

/** `n` rounded up to a multiple of 8 (columns start 8-byte aligned). */
export function align8(n: number): number {
  return (n + 7) & ~7;
}
