/**
 * What the parts of the log engine share: the data directory, the segment store, the index, and
 * the engine's stage of life. LogEngine (log-engine.ts) makes one and hands it to each part
 * (log-writer.ts, log-reader.ts, log-maintenance.ts, index-file-writer.ts); only LogEngine.close
 * moves the stage of life forward.
 */
import type { Logger } from "../../logger.js";
import type { CommitObserver } from "../engine.js";
import type { LogIndex } from "./log-index.js";
import type { SegmentStore } from "./segment-store.js";

export interface LogContext {
  readonly dataDir: string;
  readonly index: LogIndex;
  readonly store: SegmentStore;
  readonly log: Logger;
  readonly now: () => number;
  /** Told of each durable group (../engine.ts); null when nothing listens. */
  readonly commitObserver: CommitObserver | null;
  /** The largest record a segment may hold (framing checks of recovery, verify and scavenge). */
  readonly recordBytesMax: number;
  /** close() has begun: no write, scavenge or index-file rewrite is started any more. */
  closing: boolean;
  /** close() has drained the writer and maintenance: reads and verify are refused. */
  closed: boolean;
}

/** A rejected promise for a synchronous failure (engine methods never throw synchronously). */
export function rejected(error: unknown): Promise<never> {
  return Promise.reject(error instanceof Error ? error : new Error(String(error)));
}
