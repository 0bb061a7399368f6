import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { openLogEngine, type LogEngine } from "../../../src/storage/log/index.js";
import { captureLogger, events, makeTempDir, removeDir } from "./helpers.js";

const essMain = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../src/cli/main.js");
const segmentBytesMax = 16 * 1024;

async function filledStore(dir: string): Promise<LogEngine> {
  const engine = await openLogEngine({ dataDir: dir, segmentBytesMax, logger: captureLogger().logger });
  for (let i = 0; i < 100; i++) {
    await engine.append({
      tenant_id: "t",
      stream_id: i < 10 ? "victim" : `s-${i % 5}`,
      events: events(2),
      expected_revision: "any",
    });
  }
  await engine.setRetention("t", "s-1", { max_age_seconds: null, max_count: 5, truncate_before: null });
  return engine;
}

/** Flips a byte inside the data of the victim stream's first event (in a sealed segment). */
function corruptVictim(engine: LogEngine, dir: string): { segment: string; offset: number } {
  const position = engine.index.positionOf(engine.index.getStream("t", "victim")!, 0);
  assert.ok(engine.index.locate(position));
  const segmentNo = engine.index.foundSegmentNo;
  const offset = engine.index.foundOffset;
  const segment = engine.store.segments.get(segmentNo)!;
  assert.equal(segment.sealed, true, "the victim sits in a sealed segment");
  const file = path.join(dir, segment.name);
  const fd = fs.openSync(file, "r+");
  const byte = Buffer.alloc(1);
  fs.readSync(fd, byte, 0, 1, offset + 120);
  byte[0]! ^= 0x01;
  fs.writeSync(fd, byte, 0, 1, offset + 120);
  fs.closeSync(fd);
  return { segment: segment.name, offset };
}

function ess(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [essMain, ...args], {
    encoding: "utf8",
    env: { ...process.env, ESS_LOG_LEVEL: "silent" },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test("verify re-reads every record of a clean store and reports it ok", async () => {
  const dir = makeTempDir();
  try {
    const engine = await filledStore(dir);
    const progress: number[] = [];
    const result = await engine.verify((p) => progress.push(p.bytes_checked / p.bytes_total));
    assert.equal(result.ok, true, JSON.stringify(result.errors));
    assert.equal(result.records_checked, 201, "200 events and one metadata record");
    assert.ok(result.segments_checked >= 3, "several segments");
    assert.equal(result.bytes_checked, (await engine.status()).bytes_total);
    assert.equal(progress.at(-1), 1);
    await engine.close();
  } finally {
    removeDir(dir);
  }
});

test("verify stays clean while appends go on beside it", async () => {
  const dir = makeTempDir();
  try {
    const engine = await filledStore(dir);
    const appends = Array.from({ length: 200 }, (_, i) =>
      engine.append({
        tenant_id: "t",
        stream_id: `busy-${i % 3}`,
        events: events(1),
        expected_revision: "any",
      }),
    );
    const result = await engine.verify();
    await Promise.all(appends);
    assert.equal(result.ok, true, JSON.stringify(result.errors));
    assert.equal((await engine.verify()).ok, true);
    await engine.close();
  } finally {
    removeDir(dir);
  }
});

test("a flipped byte in a sealed segment is reported with segment and offset, and other streams still read", async () => {
  const dir = makeTempDir();
  try {
    let engine = await filledStore(dir);
    const before = await engine.readStream({
      tenant_id: "t",
      stream_id: "s-2",
      direction: "forward",
      from_revision: null,
      limit: 1000,
    });
    const where = corruptVictim(engine, dir);
    await engine.close();
    engine = await openLogEngine({ dataDir: dir, segmentBytesMax, logger: captureLogger().logger });
    const result = await engine.verify();
    assert.equal(result.ok, false);
    assert.deepEqual(
      result.errors.map((e) => [e.segment, e.offset, e.kind]),
      [[where.segment, where.offset, "checksum"]],
    );
    const after = await engine.readStream({
      tenant_id: "t",
      stream_id: "s-2",
      direction: "forward",
      from_revision: null,
      limit: 1000,
    });
    assert.deepEqual(after, before);
    await engine.close();
  } finally {
    removeDir(dir);
  }
});

test("ess verify --data-dir exits 0 on a clean directory and 1 listing each error on a corrupted one", async () => {
  const dir = makeTempDir();
  try {
    const engine = await filledStore(dir);
    const busy = ess("verify", "--data-dir", dir);
    assert.equal(busy.status, 1, "refused while the directory is in use");
    assert.match(busy.stderr, /in use by process/);
    await engine.close();
    const clean = ess("verify", "--data-dir", dir);
    assert.equal(clean.status, 0, clean.stdout + clean.stderr);
    assert.match(clean.stdout, /^OK: \d+ segments, 201 records/);
    const reopened = await openLogEngine({ dataDir: dir, segmentBytesMax, logger: captureLogger().logger });
    const where = corruptVictim(reopened, dir);
    await reopened.close();
    const bad = ess("verify", "--data-dir", dir);
    assert.equal(bad.status, 1);
    assert.match(bad.stdout, /^ERRORS: .* 1 error\(s\)/);
    assert.ok(bad.stdout.includes(`${where.segment} @ ${where.offset}  checksum`), bad.stdout);
    const json = ess("verify", "--data-dir", dir, "--json");
    assert.equal(json.status, 1);
    assert.equal((JSON.parse(json.stdout) as { ok: boolean }).ok, false);
    assert.equal(ess("verify").status, 2, "a missing --data-dir is bad usage");
  } finally {
    removeDir(dir);
  }
});

test("ess verify changes nothing on disk: a torn tail is reported as a note and left for the service to cut", async () => {
  const dir = makeTempDir();
  try {
    const engine = await filledStore(dir);
    const last = (await engine.status()).segments!.at(-1)!;
    await engine.close();
    const file = path.join(dir, last.name);
    fs.appendFileSync(file, Buffer.from("torn half-record"));
    const sizeBefore = fs.statSync(file).size;
    const result = ess("verify", "--data-dir", dir);
    assert.equal(result.status, 0, result.stdout + result.stderr);
    assert.match(result.stdout, /note: 16 bytes after the last complete batch/);
    assert.equal(fs.statSync(file).size, sizeBefore, "the torn bytes are still there");
    assert.equal(fs.existsSync(path.join(dir, "LOCK")), false, "the lock is released");
    assert.equal(ess("verify", "--data-dir", path.join(dir, "missing")).status, 1);
  } finally {
    removeDir(dir);
  }
});

test("ess verify draws a progress bar when stderr is a terminal", async (t) => {
  if (spawnSync("script", ["--version"]).status !== 0) {
    t.skip("needs util-linux script(1) to run under a pseudo-terminal");
    return;
  }
  const dir = makeTempDir();
  try {
    await (await filledStore(dir)).close();
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(essMain)} verify --data-dir ${JSON.stringify(dir)}`;
    const r = spawnSync("script", ["-qec", command, "/dev/null"], {
      encoding: "utf8",
      env: { ...process.env, ESS_LOG_LEVEL: "silent" },
    });
    assert.equal(r.status, 0, r.stdout);
    assert.match(r.stdout, /verifying \[#+\] 100%/);
    assert.match(r.stdout, /OK: \d+ segments/);
  } finally {
    removeDir(dir);
  }
});

test("a full rebuild skips a corrupt sealed record with one error line, and the other streams read the same", async () => {
  const dir = makeTempDir();
  try {
    let engine = await filledStore(dir);
    const before = await engine.readStream({
      tenant_id: "t",
      stream_id: "s-2",
      direction: "forward",
      from_revision: null,
      limit: 1000,
    });
    const where = corruptVictim(engine, dir);
    await engine.close();
    const indexFiles = fs.readdirSync(dir).filter((n) => n.endsWith(".idx"));
    assert.ok(
      indexFiles.includes(where.segment.replace(/\.log$/, ".idx")),
      "the victim's segment had an index file",
    );
    for (const name of indexFiles) fs.unlinkSync(path.join(dir, name));
    const { lines, logger } = captureLogger();
    engine = await openLogEngine({ dataDir: dir, segmentBytesMax, logger });
    assert.equal(
      lines.find((l) => l.msg === "log engine opened")!.fields.index_files_used,
      0,
      "a full rebuild",
    );
    const logged = lines.filter((l) => l.msg.startsWith("corrupt record in a sealed segment"));
    assert.equal(logged.length, 1);
    assert.equal(logged[0]!.fields.offset, where.offset);
    assert.deepEqual(
      await engine.readStream({
        tenant_id: "t",
        stream_id: "s-2",
        direction: "forward",
        from_revision: null,
        limit: 1000,
      }),
      before,
    );
    const victim = await engine.readStream({
      tenant_id: "t",
      stream_id: "victim",
      direction: "forward",
      from_revision: null,
      limit: 1000,
    });
    assert.equal(victim.events.length, 19, "only the corrupt event is missing");
    const result = await engine.verify();
    assert.deepEqual(
      result.errors.map((e) => [e.segment, e.offset, e.kind]),
      [[where.segment, where.offset, "checksum"]],
    );
    await engine.close();
  } finally {
    removeDir(dir);
  }
});
