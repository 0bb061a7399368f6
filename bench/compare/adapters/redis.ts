/**
 * Redis Streams as an event store: one Redis stream per event stream, entry id `0-<revision+1>`
 * so the id is the revision, and an append that checks the expected revision (XLEN, exact
 * because nothing is trimmed) in a Lua script, atomically with its XADD. Durability is the
 * server's appendfsync setting, chosen by the orchestrator per row.
 */
import { Redis } from "ioredis";
import type { SystemAdapter } from "../adapter.js";
import { eventType } from "../workload.js";

const appendScript = `
if redis.call('XLEN', KEYS[1]) ~= tonumber(ARGV[1]) then
  return redis.error_reply('WRONG_EXPECTED_REVISION')
end
return redis.call('XADD', KEYS[1], ARGV[2], 'type', ARGV[3], 'data', ARGV[4])`;

export class RedisAdapter implements SystemAdapter {
  private readonly redis: Redis;
  private appendSha: string | null = null;

  constructor(port: number) {
    // One connection: ioredis pipelines concurrent commands on it, the usual way to use Redis.
    this.redis = new Redis({ host: "127.0.0.1", port, lazyConnect: true, maxRetriesPerRequest: 1 });
  }

  async connect(): Promise<void> {
    await this.redis.connect();
    this.appendSha = (await this.redis.script("LOAD", appendScript)) as string;
  }

  async append(stream: string, expectedRevision: number, json: string): Promise<void> {
    if (this.appendSha === null) throw new Error("not connected");
    await this.redis.evalsha(
      this.appendSha,
      1,
      stream,
      expectedRevision + 1,
      `0-${expectedRevision + 2}`,
      eventType,
      json,
    );
  }

  async appendBatch(stream: string, jsons: string[]): Promise<void> {
    const transaction = this.redis.multi();
    jsons.forEach((json, revision) =>
      transaction.xadd(stream, `0-${revision + 1}`, "type", eventType, "data", json),
    );
    const results = await transaction.exec();
    for (const [error] of results ?? []) if (error) throw error;
  }

  async read(stream: string, limit: number): Promise<number> {
    const entries = await this.redis.xrange(stream, "-", "+", "COUNT", limit);
    return entries.length;
  }

  async close(): Promise<void> {
    await this.redis.quit();
  }
}
