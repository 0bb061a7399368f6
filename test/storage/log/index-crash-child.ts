/**
 * Child process of the index-file crash test (not a test itself): appends batches to small
 * segments (so segments are sealed and their index files written all the time), now and then
 * closes and reopens the engine (which saves the active segment's index), until it is killed;
 * prints each acknowledged append as one line on stdout.
 * Usage: node index-crash-child.js DATA_DIR
 */
import { randomUUID } from "node:crypto";
import { openLogEngine, type LogEngine } from "../../../src/storage/log/index.js";
import { createLogger } from "../../../src/logger.js";

const dir = process.argv[2];
if (!dir) throw new Error("usage: index-crash-child DATA_DIR");
const open = (): Promise<LogEngine> =>
  openLogEngine({ dataDir: dir, segmentBytesMax: 16 * 1024, logger: createLogger({}, 100) });
let engine = await open();
process.stdout.write("ready\n");
for (let i = 0; ; i++) {
  const stream = `s-${i % 7}`;
  const ids = [randomUUID(), randomUUID(), randomUUID()];
  const r = await engine.append({
    tenant_id: i % 5 === 0 ? "other" : "t",
    stream_id: stream,
    events: ids.map((id, k) => ({
      event_id: id,
      event_type: "e",
      data: JSON.stringify({ i, k, pad: "p".repeat(90) }),
      metadata: "{}",
    })),
    expected_revision: "any",
  });
  process.stdout.write(
    `acked ${i % 5 === 0 ? "other" : "t"} ${stream} ${r.first_revision} ${r.position} ${ids.join(",")}\n`,
  );
  if (i % 40 === 39) {
    await engine.close();
    engine = await open();
  }
}
