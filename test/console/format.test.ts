import { test } from "node:test";
import assert from "node:assert/strict";
import {
  formatBytes,
  formatCount,
  formatDuration,
  formatRate,
  formatSeconds,
  formatTime,
  formatZone,
  previewText,
  timeTooltip,
} from "../../console/src/lib/format.js";
import { base64Bytes } from "../../console/src/lib/contract.js";

test("counts are grouped by thousands and fractions cut to two digits", () => {
  assert.equal(formatCount(0), "0");
  assert.equal(formatCount(1234567), "1,234,567");
  assert.equal(formatCount(-1234), "-1,234");
  assert.equal(formatCount(12.545454), "12.55");
  assert.equal(formatCount(null), "–");
  assert.equal(formatCount(Number.NaN), "–");
});

test("sizes are in binary units", () => {
  assert.equal(formatBytes(0), "0 B");
  assert.equal(formatBytes(1023), "1,023 B");
  assert.equal(formatBytes(1536), "1.50 KiB");
  assert.equal(formatBytes(30 * 1024 + 512), "30.5 KiB");
  assert.equal(formatBytes(5 * 1024 ** 3), "5.00 GiB");
  assert.equal(formatBytes(undefined), "–");
});

test("rates, durations and ages", () => {
  assert.equal(formatRate(12.345), "12.3/s");
  assert.equal(formatRate(1234.5), "1,235/s");
  assert.equal(formatRate(null), "–");
  assert.equal(formatDuration(950), "950 ms");
  assert.equal(formatDuration(2500), "2.50 s");
  assert.equal(formatDuration(61_500), "1 min 1.5 s");
  assert.equal(formatDuration(7_260_000), "2 h 1 min");
  assert.equal(formatSeconds(90), "1 min 30 s");
  assert.equal(formatSeconds(86_400 + 3), "1 d 3 s");
  assert.equal(formatSeconds(0), "0 s");
});

test("times are written the same in every locale, local or UTC, the other clock on hover", () => {
  const iso = "2024-05-01T12:03:07.120Z";
  assert.equal(formatTime(iso, true), "2024-05-01 12:03:07.120Z");
  const date = new Date(iso);
  const pad = (n: number, w = 2) => String(n).padStart(w, "0");
  const local =
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ` +
    `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`;
  assert.equal(formatTime(iso, false), local);
  assert.equal(timeTooltip(iso, false), "2024-05-01 12:03:07.120Z UTC");
  assert.equal(timeTooltip(iso, true), `${local} local (${formatZone(date)})`);
  assert.match(formatZone(date), /^UTC[+-]\d\d:\d\d$/);
});

test("a time that is not one comes back as it is", () => {
  assert.equal(formatTime("not a time", false), "not a time");
  assert.equal(formatTime(null, false), "–");
  assert.equal(timeTooltip("nope", false), "");
});

test("a payload preview is one line, cut", () => {
  assert.equal(previewText('{\n  "a": 1\n}'), '{ "a": 1 }');
  assert.equal(previewText("x".repeat(200), 10), `${"x".repeat(9)}…`);
});

test("a base64 text's byte count leaves its padding out", () => {
  for (const length of [0, 1, 2, 3, 4, 5, 300]) {
    const text = Buffer.alloc(length, 0xab).toString("base64");
    assert.equal(base64Bytes(text), length, text);
  }
});
