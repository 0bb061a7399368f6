/**
 * Index files (one per sealed segment, and the active segment's saved at close): a data
 * directory of the version before them upgrades with the same answers; a kill -9 while index
 * files are being written loses nothing; a damaged index file never changes an answer.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { openLogEngine, type LogEngine } from "../../../src/storage/log/index.js";
import type { AppendResult, EventRecord } from "../../../src/contract/bodies.js";
import { readWholeStream } from "../../helpers/crash-harness.js";
import {
  storedAnswers,
  withJsonContentType,
  withTombstonedField,
  type StoredAnswers,
} from "../../helpers/stored-answers.js";
import { captureLogger, events, makeTempDir, removeDir, runChildUntilKilled } from "./helpers.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, "../../../..");
const fixture = path.join(repoRoot, "test/fixtures/log-v1");
const childScript = path.join(here, "index-crash-child.js");
const segmentBytesMax = 16 * 1024;

/** Appends a stored event again, with its id, to its stream (an idempotent repeat). */
function appendAgain(engine: LogEngine, tenant: string, e: EventRecord): Promise<AppendResult> {
  return engine.append({
    tenant_id: tenant,
    stream_id: e.stream_id,
    events: [{ event_id: e.event_id, event_type: e.event_type, data: e.data, metadata: e.metadata }],
    expected_revision: "any",
  });
}

interface V1Expected extends StoredAnswers {
  usage: Record<string, Record<string, unknown>>;
}

/** The answers of the v1 fixture's engine, asked again of `engine`. */
async function answersLikeV1(engine: LogEngine, expected: V1Expected): Promise<V1Expected> {
  const got: V1Expected = { ...(await storedAnswers(engine, expected)), usage: {} };
  for (const tenant of Object.keys(expected.all)) {
    got.usage[tenant] = (await engine.getTenantUsage(tenant)) as unknown as Record<string, unknown>;
  }
  return got;
}

test("a data directory written before index files opens with the same answers, and gets its index files", async () => {
  assert.ok(fs.existsSync(fixture), `the fixture ${fixture} is part of the repository`);
  const dir = makeTempDir("ess-upgrade-");
  try {
    fs.cpSync(path.join(fixture, "data"), dir, { recursive: true });
    const raw = JSON.parse(fs.readFileSync(path.join(fixture, "expected.json"), "utf8")) as V1Expected & {
      scavenge: unknown;
    };
    const { scavenge: _scavenge, ...expected } = withTombstonedField(raw);
    withJsonContentType(expected);
    // reads_total lived in the old checkpoint only; the upgrade starts it again.
    for (const u of Object.values(expected.usage)) u.reads_total = 0;
    // A stream whose first events that version scavenged has, in its log, no record of when it
    // was created: after the upgrade its created_at is that of its oldest record left
    // (docs/log-engine.md, "Upgrading"). Scavenges of this version record it.
    const createdAt = {
      "acme/trimmed": "2026-11-01T00:00:46.000Z",
      "globex/gone": "2026-11-01T00:02:06.000Z",
    };
    for (const [key, at] of Object.entries(createdAt)) expected.info[key]!.created_at = at;
    // Likewise appends_total and last_append_at count the appends the log holds: that version
    // scavenged 23 appends of acme and 1 of globex (the last one, of the deleted stream).
    expected.usage.acme!.appends_total = 67;
    expected.usage.globex!.appends_total = 30;
    expected.usage.globex!.last_append_at = "2026-11-01T00:02:02.000Z";
    for (let start = 0; start < 2; start++) {
      const { logger, lines } = captureLogger();
      const engine = await openLogEngine({ dataDir: dir, segmentBytesMax, logger });
      const got = await answersLikeV1(engine, expected);
      for (const u of Object.values(got.usage)) u.reads_total = 0;
      assert.deepEqual(got, expected, `start ${start}: the same answers as the version that wrote it`);
      const verify = await engine.verify();
      assert.equal(verify.ok, true, JSON.stringify(verify.errors));
      const opened = lines.find((l) => l.msg === "log engine opened")!;
      const sealed = (await engine.status()).segments!.filter((s) => s.sealed);
      if (start === 0) {
        assert.equal(
          opened.fields.index_files_built,
          sealed.length,
          "the first start builds every index file",
        );
      } else {
        assert.equal(opened.fields.index_files_used, sealed.length, "the second start uses them");
        assert.equal(opened.fields.index_files_built, 0);
      }
      for (const s of sealed)
        assert.ok(fs.existsSync(path.join(dir, s.name.replace(".log", ".idx"))), s.name);
      assert.equal(fs.existsSync(path.join(dir, "index.ckpt")), false, "the old checkpoint is gone");
      // Idempotency survives the upgrade: the first event of order-1 again is a repeat.
      const first = (expected.streams["acme/order-1"] as EventRecord[])[0]!;
      const repeat = await appendAgain(engine, "acme", first);
      assert.equal(repeat.first_revision, 0, "a repeat answers the original revision");
      await engine.close();
    }
  } finally {
    removeDir(dir);
  }
});

const fixtureIdx1 = path.join(repoRoot, "test/fixtures/log-idx1");

/** The format version in an index file's JSON head (segment-index-file.ts). */
function indexFileVersion(filePath: string): number {
  const bytes = fs.readFileSync(filePath);
  return (JSON.parse(bytes.toString("utf8", 24, 24 + bytes.readUInt32LE(12))) as { version: number }).version;
}

test("a data directory with index files of format version 1 opens with the same answers, and its index files are built again", async () => {
  assert.ok(fs.existsSync(fixtureIdx1), `the fixture ${fixtureIdx1} is part of the repository`);
  const dir = makeTempDir("ess-upgrade-idx1-");
  try {
    fs.cpSync(path.join(fixtureIdx1, "data"), dir, { recursive: true });
    for (const name of fs.readdirSync(dir).filter((n) => n.endsWith(".idx")))
      assert.equal(indexFileVersion(path.join(dir, name)), 1, `${name} is of the earlier format`);
    const raw = JSON.parse(fs.readFileSync(path.join(fixtureIdx1, "expected.json"), "utf8")) as V1Expected & {
      scavenge: unknown;
    };
    const { scavenge: _scavenge, ...expected } = withTombstonedField(raw);
    withJsonContentType(expected);
    // reads_total lives in index-state.json, which the upgrade keeps: the fixture's counts, before
    // this test's own reads.
    const readsBefore = Object.fromEntries(
      Object.entries(expected.usage).map(([tenant, u]) => [tenant, u.reads_total]),
    );
    for (const u of Object.values(expected.usage)) u.reads_total = 0;
    for (let start = 0; start < 2; start++) {
      const { logger, lines } = captureLogger();
      const engine = await openLogEngine({ dataDir: dir, segmentBytesMax, logger });
      if (start === 0) {
        for (const tenant of Object.keys(readsBefore))
          assert.equal((await engine.getTenantUsage(tenant))!.reads_total, readsBefore[tenant], tenant);
      }
      // Idempotency before the fingerprint set is filled (every id looked up in the index files).
      const order1 = expected.streams["acme/order-1"] as EventRecord[];
      assert.equal(engine.index.fingerprintsReady, false);
      assert.equal((await appendAgain(engine, "acme", order1[5]!)).first_revision, 5);
      const got = await answersLikeV1(engine, expected);
      for (const u of Object.values(got.usage)) u.reads_total = 0;
      assert.deepEqual(got, expected, `start ${start}: the same answers as the version that wrote it`);
      const verify = await engine.verify();
      assert.equal(verify.ok, true, JSON.stringify(verify.errors));
      const opened = lines.find((l) => l.msg === "log engine opened")!;
      const sealed = (await engine.status()).segments!.filter((s) => s.sealed);
      const upgradeLine = lines.find(
        (l) => l.msg === "segments read: their index files were of another format version",
      );
      if (start === 0) {
        assert.equal(
          opened.fields.index_files_built,
          sealed.length,
          "the first start builds every index file",
        );
        assert.equal(upgradeLine?.fields.segments, sealed.length, "said once, for every sealed segment");
        assert.ok(
          !lines.some((l) => l.msg === "segment index file rebuilt from the log"),
          "no warning per segment for an upgrade",
        );
      } else {
        assert.equal(opened.fields.index_files_used, sealed.length, "the second start uses them");
        assert.equal(opened.fields.index_files_built, 0);
        assert.equal(upgradeLine, undefined);
      }
      // Every stored event appended again is a repeat answering its own revision, once the
      // fingerprint set is filled from the new files.
      while (!engine.index.fingerprintsReady) await new Promise((resolve) => setTimeout(resolve, 5));
      for (const [key, stored] of Object.entries(expected.streams)) {
        if (!Array.isArray(stored)) continue;
        const tenant = key.split("/")[0]!;
        for (const e of stored)
          assert.equal((await appendAgain(engine, tenant, e)).first_revision, e.revision, key);
      }
      assert.equal(engine.index.idCheckFalseHits, 0);
      await engine.close();
      for (const name of fs.readdirSync(dir).filter((n) => n.endsWith(".idx")))
        assert.equal(
          indexFileVersion(path.join(dir, name)),
          2,
          `start ${start}: ${name} is of the new format`,
        );
    }
  } finally {
    removeDir(dir);
  }
});

interface Acked {
  tenant: string;
  stream: string;
  revision: number;
  position: number;
  eventIds: string[];
}

function parseAcked(line: string): Acked | null {
  const m = /^acked (\S+) (\S+) (\d+) (\d+) (\S+)$/.exec(line);
  if (!m) return null;
  return {
    tenant: m[1]!,
    stream: m[2]!,
    revision: Number(m[3]),
    position: Number(m[4]),
    eventIds: m[5]!.split(","),
  };
}

test("SIGKILL while segments are sealed and index files written loses no acknowledged event", async () => {
  const dir = makeTempDir("ess-index-crash-");
  try {
    const acked: Acked[] = [];
    for (let iteration = 0; iteration < 15; iteration++) {
      // At least ~one segment's worth of appends (about 35 fill 16 KiB) before the kill's random
      // moment, so segments are sealed along the way however slow the machine is.
      const writes = 20 + Math.floor(Math.random() * 40);
      acked.push(
        ...(await runChildUntilKilled(childScript, dir, Math.floor(Math.random() * 100), parseAcked, writes)),
      );
      const engine = await openLogEngine({ dataDir: dir, segmentBytesMax, logger: captureLogger().logger });
      const verify = await engine.verify();
      assert.equal(verify.ok, true, `iteration ${iteration}: ${JSON.stringify(verify.errors)}`);
      const read = new Map<string, EventRecord[]>();
      for (const a of acked) {
        const key = `${a.tenant}/${a.stream}`;
        if (!read.has(key)) read.set(key, await readWholeStream(engine, a.tenant, a.stream));
        const got = read.get(key)!;
        a.eventIds.forEach((id, k) => {
          const e = got[a.revision + k];
          assert.ok(e, `iteration ${iteration}: acknowledged ${key}@${a.revision + k} is readable`);
          assert.equal(e.event_id, id);
          assert.equal(e.position, a.position - (a.eventIds.length - 1) + k);
        });
      }
      // Every revision a reader sees has its event: no gaps from a half-written index.
      for (const [key, got] of read) got.forEach((e, i) => assert.equal(e.revision, i, key));
      // $all of each tenant is in position order and holds every event of its streams.
      for (const tenant of ["t", "other"]) {
        const all: EventRecord[] = [];
        for (let from: number | null = 0; from !== null;) {
          const page = await engine.readAll({ tenant_id: tenant, from_position: from, limit: 1000 });
          all.push(...page.events);
          from = page.next_position;
        }
        for (let i = 1; i < all.length; i++) assert.ok(all[i]!.position > all[i - 1]!.position);
        // (Every stream: an append the kill cut off before its answer may still be durable.)
        let count = 0;
        const list = await engine.listStreams({ tenant_id: tenant, prefix: null, cursor: null, limit: 1000 });
        for (const s of list.streams) count += s.event_count;
        assert.equal(all.length, count, `${tenant}: $all holds every event of its streams`);
      }
      await engine.close();
    }
    assert.ok(acked.length > 50, `the child did real work (${acked.length} appends)`);
    const sealed = fs.readdirSync(dir).filter((n) => n.endsWith(".log")).length - 1;
    assert.ok(sealed > 5, "segments were sealed along the way");
  } finally {
    removeDir(dir);
  }
});

test("a damaged block of an index file is noticed when read: the segment's index is rebuilt from the log, answers unchanged", async () => {
  const dir = makeTempDir("ess-index-damage-");
  try {
    let engine = await openLogEngine({ dataDir: dir, segmentBytesMax, logger: captureLogger().logger });
    for (let i = 0; i < 60; i++)
      await engine.append({
        tenant_id: "t",
        stream_id: `s-${i % 3}`,
        events: events(2),
        expected_revision: "any",
      });
    const before = await Promise.all(["s-0", "s-1", "s-2"].map((s) => readWholeStream(engine, "t", s)));
    const allBefore = (await engine.readAll({ tenant_id: "t", from_position: 0, limit: 1000 })).events;
    await engine.close();
    const idx = path.join(dir, "seg-0000000001.idx");
    assert.ok(fs.existsSync(idx));
    // The last byte of the file is in the body (the fingerprint-sorted positions).
    const bytes = fs.readFileSync(idx);
    bytes[bytes.length - 3]! ^= 0x40;
    const bodyByte = bytes.length - 3;
    fs.writeFileSync(idx, bytes);
    const { logger, lines } = captureLogger();
    engine = await openLogEngine({ dataDir: dir, segmentBytesMax, logger });
    const after = await Promise.all(["s-0", "s-1", "s-2"].map((s) => readWholeStream(engine, "t", s)));
    assert.deepEqual(after, before);
    assert.deepEqual(
      (await engine.readAll({ tenant_id: "t", from_position: 0, limit: 1000 })).events,
      allBefore,
    );
    // The ids in that file still make repeats idempotent.
    const first = before[0]![0]!;
    const repeat = await appendAgain(engine, "t", first);
    assert.equal(repeat.first_revision, 0);
    assert.ok(
      lines.some((l) => l.msg.startsWith("a segment index file is damaged")),
      `the damage at byte ${bodyByte} was logged: ${JSON.stringify(lines.map((l) => l.msg))}`,
    );
    assert.equal((await engine.verify()).ok, true);
    await engine.close();
  } finally {
    removeDir(dir);
  }
});
