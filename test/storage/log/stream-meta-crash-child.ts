/**
 * Child process of the tombstone crash test (not a test itself): on small segments (so segments
 * are sealed and their index files written all the time), appends to a new stream, sets its
 * metadata and tombstones it, over and over, until it is killed; prints each acknowledged
 * metadata change and tombstone as one line on stdout.
 * Usage: node stream-meta-crash-child.js DATA_DIR
 */
import { openLogEngine, type LogEngine } from "../../../src/storage/log/index.js";
import { createLogger } from "../../../src/logger.js";
import { events } from "./helpers.js";

const dir = process.argv[2];
if (!dir) throw new Error("usage: stream-meta-crash-child DATA_DIR");
const open = (): Promise<LogEngine> =>
  openLogEngine({ dataDir: dir, segmentBytesMax: 16 * 1024, logger: createLogger({}, 100) });
let engine = await open();
// Streams of earlier runs (the parent reruns this child on the same directory) are left alone.
const run = Date.now().toString(36);
process.stdout.write("ready\n");
for (let i = 0; ; i++) {
  const stream = `t-${run}-${i}`;
  await engine.append({
    tenant_id: "t",
    stream_id: stream,
    events: events(3, i * 3),
    expected_revision: "no_stream",
  });
  const set = await engine.setStreamMetadata({
    tenant_id: "t",
    stream_id: stream,
    metadata: { i, $maxCount: 2 },
    expected_metadata_revision: "no_stream",
  });
  process.stdout.write(`metadata ${stream} ${set.metadata_revision}\n`);
  if (i % 2 === 0) {
    await engine.deleteStream("t", stream, { expected_revision: 2, tombstone: true });
    process.stdout.write(`tombstoned ${stream}\n`);
  }
  if (i % 25 === 24) {
    await engine.close();
    engine = await open();
  }
}
