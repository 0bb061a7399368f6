import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { openLogEngine, type LogEngine, type LogFaults } from "../../../src/storage/log/index.js";
import { isEssError } from "../../../src/errors.js";
import { captureLogger, events, makeTempDir, removeDir } from "./helpers.js";

const engineModule = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../../src/storage/log/index.js",
);

function errno(code: string): NodeJS.ErrnoException {
  const e: NodeJS.ErrnoException = new Error(`${code}: injected`);
  e.code = code;
  return e;
}

function sizeOnDisk(dir: string): number {
  return fs
    .readdirSync(dir)
    .filter((n) => n.endsWith(".log"))
    .reduce((sum, n) => sum + fs.statSync(path.join(dir, n)).size, 0);
}

test("a write error (disk full) fails every append of the batch, cuts the partial bytes, and appends work again once space returns", async () => {
  const dir = makeTempDir();
  try {
    let diskFull = false;
    const faults: LogFaults = {
      write: ({ bytes }) =>
        diskFull ? { error: errno("ENOSPC"), partialBytes: Math.floor(bytes / 2) } : null,
    };
    let engine = await openLogEngine({ dataDir: dir, faults, logger: captureLogger().logger });
    await engine.append({ tenant_id: "t", stream_id: "s", events: events(3), expected_revision: "any" });
    const before = await engine.readAll({ tenant_id: "t", from_position: 0, limit: 100 });
    const bytesBefore = sizeOnDisk(dir);
    diskFull = true;
    const outcomes = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) =>
        engine.append({
          tenant_id: "t",
          stream_id: `s-${i % 2}`,
          events: events(2),
          expected_revision: "any",
        }),
      ),
    );
    for (const o of outcomes) {
      assert.equal(o.status, "rejected");
      assert.ok(isEssError(o.reason) && o.reason.code === "UNAVAILABLE");
      assert.match(o.reason.message, /ENOSPC/);
      assert.doesNotMatch(o.reason.message, /ENOSPC: ENOSPC/, "the code is named once");
    }
    const durableBytes = (await engine.status()).bytes_total;
    assert.ok(durableBytes <= bytesBefore, "the file held the durable bytes and maybe sparse room");
    assert.equal(sizeOnDisk(dir), durableBytes, "the partial write was cut, room and all");
    assert.deepEqual(await engine.readAll({ tenant_id: "t", from_position: 0, limit: 100 }), before);
    assert.equal(engine.isWritable(), true, "a write error is not fatal");
    assert.equal((await engine.verify()).ok, true);
    diskFull = false;
    const after = await engine.append({
      tenant_id: "t",
      stream_id: "s",
      events: events(1),
      expected_revision: 2,
    });
    assert.equal(after.first_revision, 3);
    assert.equal(after.position, 4, "no position was used by the failed appends");
    await engine.close();
    engine = await openLogEngine({ dataDir: dir, logger: captureLogger().logger });
    assert.equal((await engine.readAll({ tenant_id: "t", from_position: 0, limit: 100 })).events.length, 4);
    assert.equal((await engine.verify()).ok, true);
    await engine.close();
  } finally {
    removeDir(dir);
  }
});

test("an fsync error stops all writes (never retried) until the store is reopened from disk", async () => {
  const dir = makeTempDir();
  try {
    let failFsync = false;
    const faults: LogFaults = { fsync: () => (failFsync ? errno("EIO") : null) };
    const { lines, logger } = captureLogger();
    let engine = await openLogEngine({ dataDir: dir, faults, logger });
    await engine.append({ tenant_id: "t", stream_id: "s", events: events(2), expected_revision: "any" });
    failFsync = true;
    const failed = engine.append({
      tenant_id: "t",
      stream_id: "s",
      events: events(1),
      expected_revision: "any",
    });
    await assert.rejects(failed, (e) => isEssError(e) && e.code === "UNAVAILABLE" && /EIO/.test(e.message));
    assert.equal(engine.isWritable(), false);
    assert.ok(lines.some((l) => l.msg.startsWith("fdatasync failed")));
    failFsync = false;
    await assert.rejects(
      engine.append({ tenant_id: "t", stream_id: "s", events: events(1), expected_revision: "any" }),
      (e) => isEssError(e) && e.code === "UNAVAILABLE",
      "even with a healthy disk again, the engine does not pretend the lost write happened",
    );
    const read = await engine.readStream({
      tenant_id: "t",
      stream_id: "s",
      direction: "forward",
      from_revision: null,
      limit: 10,
    });
    assert.equal(read.events.length, 2, "reads go on, showing only acknowledged events");
    await engine.close();
    engine = await openLogEngine({ dataDir: dir, logger: captureLogger().logger });
    assert.equal(engine.isWritable(), true, "reopening recovers from what is on disk");
    const info = await engine.getStreamInfo("t", "s");
    assert.ok(
      info && (info.event_count === 2 || info.event_count === 3),
      "the unacknowledged batch is whole or absent",
    );
    await engine.append({ tenant_id: "t", stream_id: "s", events: events(1), expected_revision: "any" });
    assert.equal((await engine.verify()).ok, true);
    await engine.close();
  } finally {
    removeDir(dir);
  }
});

function tryOpenInChild(dir: string): { code: string; message: string } {
  const script = `
    import(${JSON.stringify(engineModule)}).then(async ({ openLogEngine }) => {
      try {
        const e = await openLogEngine({ dataDir: ${JSON.stringify(dir)} });
        await e.close();
        process.stdout.write(JSON.stringify({ code: "OPENED", message: "" }));
      } catch (error) {
        process.stdout.write(JSON.stringify({ code: error.code ?? "?", message: error.message }));
      }
    });`;
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
    encoding: "utf8",
    env: { ...process.env, ESS_LOG_LEVEL: "silent" },
  });
  return JSON.parse(r.stdout) as { code: string; message: string };
}

test("the data directory lock refuses a second owner, in this process and in another one", async () => {
  const dir = makeTempDir();
  try {
    const engine = await openLogEngine({ dataDir: dir, logger: captureLogger().logger });
    await assert.rejects(
      openLogEngine({ dataDir: dir, logger: captureLogger().logger }),
      (e) =>
        isEssError(e) && e.code === "UNAVAILABLE" && e.message.includes(`in use by process ${process.pid}`),
    );
    const other = tryOpenInChild(dir);
    assert.equal(other.code, "UNAVAILABLE");
    assert.match(other.message, new RegExp(`data directory .* is in use by process ${process.pid}`));
    await engine.close();
    assert.equal(tryOpenInChild(dir).code, "OPENED", "the lock is released on close");
  } finally {
    removeDir(dir);
  }
});

test("a lock left by a process that died is taken over", async () => {
  const dir = makeTempDir();
  try {
    const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], {
      encoding: "utf8",
    });
    fs.writeFileSync(
      path.join(dir, "LOCK"),
      JSON.stringify({ pid: Number(dead.stdout), host: (await import("node:os")).hostname() }),
    );
    const engine = await openLogEngine({ dataDir: dir, logger: captureLogger().logger });
    assert.match(fs.readFileSync(path.join(dir, "LOCK"), "utf8"), new RegExp(`"pid":${process.pid}`));
    await engine.close();
  } finally {
    removeDir(dir);
  }
});

test("on a real full filesystem (a 256 KiB tmpfs), appends fail cleanly and work again once space returns", async (t) => {
  const mountPoint = makeTempDir("ess-tmpfs-");
  const mounted = spawnSync("mount", ["-t", "tmpfs", "-o", "size=256k", "tmpfs", mountPoint]).status === 0;
  if (!mounted) {
    removeDir(mountPoint);
    t.skip("mounting a tmpfs needs root");
    return;
  }
  let engine: LogEngine | null = null;
  try {
    const dataDir = path.join(mountPoint, "data");
    const options = { dataDir, segmentBytesMax: 64 * 1024, logger: captureLogger().logger };
    engine = await openLogEngine(options);
    fs.writeFileSync(path.join(mountPoint, "ballast"), Buffer.alloc(48 * 1024));
    let acknowledged = 0;
    let failure: unknown = null;
    for (let i = 0; i < 5000 && failure === null; i++) {
      try {
        await engine.append({
          tenant_id: "t",
          stream_id: `s-${i % 4}`,
          events: events(2),
          expected_revision: "any",
        });
        acknowledged += 2;
      } catch (error) {
        failure = error;
      }
    }
    assert.ok(
      isEssError(failure) && failure.code === "UNAVAILABLE" && /ENOSPC/.test(failure.message),
      String(failure),
    );
    assert.doesNotMatch(failure.message, /ENOSPC: ENOSPC/, "the code is named once");
    assert.equal(engine.isWritable(), true);
    assert.equal((await engine.status()).events_total, acknowledged);
    assert.equal((await engine.verify()).ok, true);
    fs.unlinkSync(path.join(mountPoint, "ballast"));
    await engine.append({ tenant_id: "t", stream_id: "s-0", events: events(2), expected_revision: "any" });
    acknowledged += 2;
    await engine.close();
    engine = await openLogEngine(options);
    assert.equal((await engine.status()).events_total, acknowledged);
    assert.equal((await engine.verify()).ok, true);
  } finally {
    await engine?.close();
    spawnSync("umount", [mountPoint]);
    removeDir(mountPoint);
  }
});

test("a new segment that cannot be created fails only the group that needed it, and leaves no file behind", async () => {
  const dir = makeTempDir();
  try {
    let failHeaders = false;
    const faults: LogFaults = {
      write: ({ offset }) => (failHeaders && offset === 0 ? { error: errno("ENOSPC") } : null),
    };
    const engine = await openLogEngine({
      dataDir: dir,
      segmentBytesMax: 8 * 1024,
      faults,
      logger: captureLogger().logger,
    });
    const before = fs.readdirSync(dir).filter((n) => n.endsWith(".log"));
    failHeaders = true;
    let refused = 0;
    let acknowledged = 0;
    for (let i = 0; i < 80; i++) {
      try {
        await engine.append({ tenant_id: "t", stream_id: "s", events: events(1), expected_revision: "any" });
        acknowledged++;
      } catch (error) {
        assert.ok(isEssError(error) && error.code === "UNAVAILABLE" && /ENOSPC/.test(error.message));
        refused++;
      }
    }
    assert.ok(refused > 0 && acknowledged > 0, `${acknowledged} acknowledged, then ${refused} refused`);
    assert.deepEqual(
      fs.readdirSync(dir).filter((n) => n.endsWith(".log")),
      before,
      "no half-made segment",
    );
    assert.equal(engine.isWritable(), true);
    failHeaders = false;
    const next = await engine.append({
      tenant_id: "t",
      stream_id: "s",
      events: events(1),
      expected_revision: "any",
    });
    assert.equal(next.first_revision, acknowledged);
    assert.equal((await engine.verify()).ok, true);
    await engine.close();
  } finally {
    removeDir(dir);
  }
});
