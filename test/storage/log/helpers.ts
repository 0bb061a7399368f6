/** Shared helpers for the log engine tests: temp data dirs and event builders. */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import type { EventRecord } from "../../../src/contract/bodies.js";
import type { EventToAppend } from "../../../src/storage/engine.js";
import type { Logger } from "../../../src/logger.js";
import { eventFingerprint } from "../../../src/storage/log/fingerprint-set.js";

export function makeTempDir(prefix = "ess-log-"): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function removeDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
}

export function event(n: number, extra: Partial<EventToAppend> = {}): EventToAppend {
  return {
    event_id: randomUUID(),
    event_type: "thing-happened",
    data: JSON.stringify({ n, text: "x".repeat(50) }),
    metadata: "{}",
    ...extra,
  };
}

export function events(count: number, start = 0): EventToAppend[] {
  return Array.from({ length: count }, (_, i) => event(start + i));
}

/** A logger that records lines, for asserting what start-up reported. */
export function captureLogger(): {
  lines: { msg: string; fields: Record<string, unknown> }[];
  logger: Logger;
} {
  const lines: { msg: string; fields: Record<string, unknown> }[] = [];
  const make = (base: Record<string, unknown>): Logger => {
    const write = (msg: string, fields?: Record<string, unknown>): void => {
      lines.push({ msg, fields: { ...base, ...fields } });
    };
    return { debug: write, info: write, warn: write, error: write, child: (f) => make({ ...base, ...f }) };
  };
  return { lines, logger: make({}) };
}

/**
 * A record's fields as a plain object, read one by one (through the getters for a
 * StoredEventRecord, without its own toJSON), to compare stored-bytes records with plain ones.
 */
export function plainEventRecord(e: EventRecord): EventRecord {
  return {
    stream_id: e.stream_id,
    revision: e.revision,
    position: e.position,
    event_id: e.event_id,
    event_type: e.event_type,
    data: e.data,
    metadata: e.metadata,
    created_at: e.created_at,
    content_type: e.content_type,
  };
}

/**
 * Runs a child script (`node SCRIPT DIR`) that prints "ready" and then one line per
 * acknowledged write, kills it with SIGKILL `killAfterMs` after "ready" (or, with
 * `afterWrites`, after that many acknowledged writes: a kill that must land after some work,
 * whatever the machine's speed), and returns the lines that `parse` turned into values (the
 * writes acknowledged before the kill).
 */
export function runChildUntilKilled<T>(
  script: string,
  dir: string,
  killAfterMs: number,
  parse: (line: string) => T | null,
  afterWrites = 0,
): Promise<T[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, dir], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    let timer: NodeJS.Timeout | null = null;
    let lines = 0;
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      out += chunk;
      if (timer !== null || !out.startsWith("ready\n")) return;
      for (let i = chunk.indexOf("\n"); i !== -1; i = chunk.indexOf("\n", i + 1)) lines++;
      // "ready" is a line of its own: the writes are the lines after it.
      if (lines - 1 >= afterWrites) timer = setTimeout(() => child.kill("SIGKILL"), killAfterMs);
    });
    child.on("error", reject);
    child.on("exit", () => {
      const parsed: T[] = [];
      for (const line of out.split("\n")) {
        const value = parse(line);
        if (value !== null) parsed.push(value);
      }
      resolve(parsed);
    });
  });
}

/** The fingerprint of one event, as [low, high] (fingerprint-set.ts). */
export function fingerprint(tenantId: string, streamId: string, eventId: string): [number, number] {
  const pair = new Uint32Array(2);
  eventFingerprint(tenantId, streamId, eventId, pair, 0);
  return [pair[0]!, pair[1]!];
}

/**
 * The UUID-shaped event id number `n` of a fixed sequence that looks random (mulberry32 steps):
 * ids that differ only in a counter's digits hash without collisions, unlike real ids.
 */
export function sequenceId(n: number): string {
  const hex = (k: number): string => {
    let t = Math.imul(n, 4) + k + 0x6d2b79f5;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0).toString(16).padStart(8, "0");
  };
  const h = hex(0) + hex(1) + hex(2) + hex(3);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * Event ids of one stream whose fingerprints share the low lane (the one the set stores), found
 * by trying `tries` ids: about tries² / 2^33 such pairs (10 for 300,000).
 */
export function lowLaneCollisions(tenantId: string, streamId: string, tries: number): [string, string][] {
  const byLow = new Map<number, string>();
  const pairs: [string, string][] = [];
  for (let i = 0; i < tries; i++) {
    const id = sequenceId(i);
    const [low] = fingerprint(tenantId, streamId, id);
    const other = byLow.get(low);
    if (other !== undefined) pairs.push([other, id]);
    else byLow.set(low, id);
  }
  return pairs;
}
