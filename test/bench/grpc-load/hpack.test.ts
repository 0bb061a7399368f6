import { test } from "node:test";
import assert from "node:assert/strict";
import { encodeHeaderBlock, HpackDecoder, HpackError } from "../../../bench/grpc-load/h2/hpack.js";

const decoder = () => new HpackDecoder(4096, 65_536);

test("a header block this side encodes decodes to the same fields (static names, new names, long values)", () => {
  const fields: [string, string][] = [
    [":method", "POST"],
    [":path", "/ess.v1.Streams/Append"],
    ["content-type", "application/grpc"],
    ["te", "trailers"],
    ["authorization", `Bearer ${"t".repeat(300)}`],
  ];
  const block = encodeHeaderBlock(fields);
  assert.equal(block[0], 0x83, ":method POST goes as its static index");
  assert.deepEqual(decoder().decode(block), Object.fromEntries(fields));
});

test("the RFC 7541 C.3 requests decode in sequence through the dynamic table", () => {
  // Appendix C.3: three requests without Huffman coding, the later ones reusing indexed fields.
  const d = decoder();
  const first = Buffer.from("828684410f7777772e6578616d706c652e636f6d", "hex");
  assert.deepEqual(d.decode(first), {
    ":method": "GET",
    ":scheme": "http",
    ":path": "/",
    ":authority": "www.example.com",
  });
  const second = Buffer.from("828684be58086e6f2d6361636865", "hex");
  assert.deepEqual(d.decode(second), {
    ":method": "GET",
    ":scheme": "http",
    ":path": "/",
    ":authority": "www.example.com",
    "cache-control": "no-cache",
  });
  const third = Buffer.from("828785bf400a637573746f6d2d6b65790c637573746f6d2d76616c7565", "hex");
  assert.deepEqual(d.decode(third), {
    ":method": "GET",
    ":scheme": "https",
    ":path": "/index.html",
    ":authority": "www.example.com",
    "custom-key": "custom-value",
  });
});

test("the RFC 7541 C.4 request decodes its Huffman-coded value", () => {
  const block = Buffer.from("828684418cf1e3c2e5f23a6ba0ab90f4ff", "hex");
  assert.deepEqual(decoder().decode(block), {
    ":method": "GET",
    ":scheme": "http",
    ":path": "/",
    ":authority": "www.example.com",
  });
});

test("broken blocks are refused: index 0, past the tables, truncated, bad Huffman padding, a size update too large or late", () => {
  const broken = [
    "80", // indexed field 0
    "ff00", // index 127 + 0: past the static table, dynamic table empty
    "41", // literal with a name index and no value
    "410f77", // a value shorter than its length
    "4181ff", // Huffman value: 8 bits of padding
    "3fe21f", // table size update to 4,096 + ... above the setting
    "82" + "20", // a table size update after a field
  ];
  for (const hex of broken) {
    assert.throws(() => decoder().decode(Buffer.from(hex, "hex")), HpackError, hex);
  }
});

test("a table size update evicts, and an entry larger than the table empties it", () => {
  const d = decoder();
  // Incremental indexing of custom-key: custom-value (54 octets with the overhead), then a size
  // update to 0 that must evict it: referring to index 62 afterwards fails.
  d.decode(Buffer.from("400a637573746f6d2d6b65790c637573746f6d2d76616c7565", "hex"));
  assert.deepEqual(d.decode(Buffer.from("be", "hex")), { "custom-key": "custom-value" });
  d.decode(Buffer.from("20", "hex"));
  assert.throws(() => d.decode(Buffer.from("be", "hex")), HpackError);
});

test("random bytes never get past the decoder as anything but HpackError or fields (10,000 blocks)", () => {
  // A deterministic generator, so a failure reproduces.
  let seed = 12345;
  const random = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x80000000;
  };
  const d = decoder();
  for (let i = 0; i < 10_000; i++) {
    const block = Buffer.alloc(1 + Math.floor(random() * 40));
    for (let j = 0; j < block.length; j++) block[j] = Math.floor(random() * 256);
    try {
      const fields = d.decode(block);
      for (const [name, value] of Object.entries(fields)) {
        assert.equal(typeof name, "string");
        assert.equal(typeof value, "string");
      }
    } catch (error) {
      assert.ok(error instanceof HpackError, `block ${block.toString("hex")}: ${String(error)}`);
    }
  }
});
