import { test } from "node:test";
import assert from "node:assert/strict";
import { crc32c } from "./crc32c.js";

function bitwiseCrc32c(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
  }
  return ~c >>> 0;
}

test("crc32c of '123456789' is the standard check value 0xE3069283", () => {
  assert.equal(crc32c(Buffer.from("123456789", "ascii")), 0xe3069283);
});

test("crc32c of 32 zero bytes matches the RFC 3720 test vector", () => {
  assert.equal(crc32c(Buffer.alloc(32)), 0x8a9136aa);
  assert.equal(crc32c(Buffer.alloc(32, 0xff)), 0x62a8ab43);
});

test("slicing-by-16 agrees with the bitwise definition at every length and alignment", () => {
  const backing = Buffer.alloc(600);
  for (let i = 0; i < backing.length; i++) backing[i] = (i * 131 + 7) & 0xff;
  // Views at every offset of their buffer modulo 4, so the word loads start anywhere.
  for (let shift = 0; shift < 4; shift++) {
    const data = backing.subarray(shift, shift + 300);
    for (let start = 0; start < 9; start++) {
      for (let end = start; end <= 140; end++) {
        assert.equal(
          crc32c(data, start, end),
          bitwiseCrc32c(data.subarray(start, end)),
          `${shift}:${start}..${end}`,
        );
      }
      assert.equal(crc32c(data, start), bitwiseCrc32c(data.subarray(start)), `${shift}:${start}..`);
    }
  }
});

test("a checksum can be continued across chunks", () => {
  const data = Buffer.from("the quick brown fox jumps over the lazy dog");
  assert.equal(crc32c(data, 13, data.length, crc32c(data, 0, 13)), crc32c(data));
});
