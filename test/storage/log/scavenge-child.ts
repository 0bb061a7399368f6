/**
 * Child process of the scavenge crash test (not a test itself): appends and scavenges in a loop
 * until it is killed, printing each acknowledged append as one line on stdout.
 * Usage: node scavenge-child.js DATA_DIR
 */
import { randomUUID } from "node:crypto";
import { openLogEngine } from "../../../src/storage/log/index.js";
import { createLogger } from "../../../src/logger.js";

const dir = process.argv[2];
if (!dir) throw new Error("usage: scavenge-child DATA_DIR");
const engine = await openLogEngine({
  dataDir: dir,
  segmentBytesMax: 16 * 1024,
  logger: createLogger({}, 100),
});
process.stdout.write("ready\n");
for (let i = 0; ; i++) {
  const stream = i % 2 === 0 ? `live-${i % 3}` : `old-${i % 4}`;
  const eventId = randomUUID();
  const r = await engine.append({
    tenant_id: "t",
    stream_id: stream,
    events: [
      {
        event_id: eventId,
        event_type: "e",
        data: JSON.stringify({ i, pad: "p".repeat(120) }),
        metadata: "{}",
      },
    ],
    expected_revision: "any",
  });
  process.stdout.write(`acked ${stream} ${r.first_revision} ${r.position} ${eventId}\n`);
  if (i % 3 === 0) {
    const old = `old-${i % 4}`;
    const info = await engine.getStreamInfo("t", old);
    const first = info?.first_revision ?? 0;
    await engine.setRetention("t", old, {
      max_age_seconds: null,
      max_count: null,
      truncate_before: first + 7,
    });
    await engine.scavenge({ dry_run: false });
  }
}
