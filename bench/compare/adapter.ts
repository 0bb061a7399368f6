/**
 * What the driver needs from each system: append one event with an exact expected revision,
 * append a whole stream's events at once (preloading the read set, not timed), and read the
 * first `limit` events of a stream. Every adapter runs in the driver process, never in a server.
 */

/** Where and how to reach one system; built by the orchestrator, sent to the driver as JSON. */
export type Target =
  | { system: "ess-grpc"; address: string; password: string }
  | { system: "ess-grpc-session"; address: string; password: string }
  | { system: "ess-rest"; baseUrl: string; password: string }
  | { system: "ess-kurrent"; address: string; password: string }
  | { system: "postgres"; url: string; schema: string; poolSize: number }
  | { system: "redis"; port: number }
  | { system: "nats"; port: number; streamName: string };

export interface SystemAdapter {
  /**
   * Append one event whose data is `json` to `stream`, expecting the stream's last revision to
   * be `expectedRevision` (-1: the stream does not exist yet). Rejects on a conflict.
   */
  append(stream: string, expectedRevision: number, json: string): Promise<void>;
  /** Create `stream` with these events in one call where the system allows it. */
  appendBatch(stream: string, jsons: string[]): Promise<void>;
  /** Read the stream's first `limit` events; resolves to how many came back. */
  read(stream: string, limit: number): Promise<number>;
  close(): Promise<void>;
}
