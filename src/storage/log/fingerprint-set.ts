/**
 * Event-id fingerprints, and the set of the fingerprints of every stored event: the one part of
 * the index that stays resident per event (4 bytes a slot; about 10 bytes per event, see
 * "Growing"). An append asks the set first; "not there" (almost every new event) needs no
 * disk read, and "there" is only a candidate the caller confirms against the per-segment index
 * files (both lanes) and the record.
 *
 * A fingerprint is 64 bits in two 32-bit lanes (FingerprintPairs): the set stores the low lane
 * in a slot and picks the shard by the top SHARD_BITS of the high lane, which it does not store.
 * So an entry matches only when both agree, and the set tells 32 + SHARD_BITS = 42 bits apart
 * for the same 4 bytes a slot: with N events stored a new id is there by chance with probability
 * about N / 2^42 (one in 88,000 at 50 million; with the shard taken from the stored lane, as in
 * earlier versions, N / 2^32: one in 86). The index files keep both lanes, so a chance match in
 * the set is told apart there without reading a record.
 *
 * Growing doubles one shard at a time: the pause a resize costs follows a 1024th of the store,
 * not all of it. The shards fill at the same pace (their shard comes from a hash), so with one
 * load limit for all they would all double within the same few hundred thousand appends, and
 * the appends there would pay the whole store's rehash at once (the set alone: 560 ns per add
 * over the 5 million adds around its doubling to 537 MiB, ~125 before and after; BENCHMARKS.md).
 * So each shard has its own limit, spread evenly
 * from 0.35 to 0.7 of its slots: the doublings are spread over the whole time the store takes
 * to double, and the memory per event stays near 10 bytes instead of swinging between 8 and 16.
 * (Linear probing at 0.7 full still finds its answer within one or two cache lines.)
 *
 * Zero marks an empty slot, so the low lane is never 0. Nothing is ever removed
 * (an id scavenge dropped stays a candidate that the confirmation rejects, until the next
 * start-up rebuilds the set).
 */
const SHARD_BITS = 10;
const SHARDS = 1 << SHARD_BITS;
/** log2 of a shard's slots before it first grows: 1024 shards of 256 slots, 1 MiB in all. */
const SHARD_BITS_INITIAL = 8;
/** Shard s grows past (LOAD_MIN + LOAD_SPREAD * s / SHARDS) of its slots used (see Growing). */
const LOAD_MIN = 0.35;
const LOAD_SPREAD = 0.35;

/** How many fingerprints shard `s` holds before it doubles, with 2^bits slots. */
function shardLimit(s: number, bits: number): number {
  return Math.floor((1 << bits) * (LOAD_MIN + (LOAD_SPREAD * s) / SHARDS));
}

/**
 * Event fingerprints, the two lanes of event i at [2i] (low: stored in the set, never 0) and
 * [2i + 1] (high: its top bits pick the set's shard).
 */
export type FingerprintPairs = Uint32Array;

/**
 * Writes the fingerprint of (tenant, stream, event id) as pair `i` of `into`: one pass over the
 * UTF-16 code units of the three strings (a 0 between them), feeding two independent lanes,
 * FNV-1a and a multiply-xorshift one, each finished by MurmurHash3's 32-bit avalanche. The
 * xorshift keeps the lanes from agreeing in their low bits (multiplying by an odd number keeps
 * bit 0 a plain XOR of the input's bit 0 in both), so together they hold about 64 bits.
 */
export function eventFingerprint(
  tenantId: string,
  streamId: string,
  eventId: string,
  into: FingerprintPairs,
  i: number,
): void {
  fingerprintInto(tenantId, streamId, eventId, scratch);
  into[2 * i] = scratch.fingerprintLow;
  into[2 * i + 1] = scratch.fingerprintHigh;
}

/** Where a fingerprint is kept on an object (a measured record): no typed array per event. */
export interface FingerprintHolder {
  /** The low lane (never 0 once computed, so 0 can mean "not computed yet"). */
  fingerprintLow: number;
  fingerprintHigh: number;
}

const scratch: FingerprintHolder = { fingerprintLow: 0, fingerprintHigh: 0 };

/** eventFingerprint, written into `into`'s two fields. */
export function fingerprintInto(
  tenantId: string,
  streamId: string,
  eventId: string,
  into: FingerprintHolder,
): void {
  let a = 0x811c9dc5;
  let b = 0x9e3779b9;
  for (let k = 0; k < tenantId.length; k++) {
    const c = tenantId.charCodeAt(k);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  a = Math.imul(a, 0x01000193);
  b = Math.imul(b, 0x5bd1e995);
  b ^= b >>> 15;
  for (let k = 0; k < streamId.length; k++) {
    const c = streamId.charCodeAt(k);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  a = Math.imul(a, 0x01000193);
  b = Math.imul(b, 0x5bd1e995);
  b ^= b >>> 15;
  for (let k = 0; k < eventId.length; k++) {
    const c = eventId.charCodeAt(k);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  into.fingerprintLow = avalanche(a) || 1;
  into.fingerprintHigh = avalanche(b);
}

/** MurmurHash3's fmix32: every input bit flips each output bit with probability about 1/2. */
function avalanche(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export class FingerprintSet {
  private readonly shards: Uint32Array[] = [];
  /** Per shard: log2 of its slots. */
  private readonly bits = new Uint8Array(SHARDS);
  private readonly sizes = new Uint32Array(SHARDS);
  /** Per shard: the size past which it doubles (shardLimit). */
  private readonly limits = new Uint32Array(SHARDS);
  size = 0;

  constructor() {
    for (let i = 0; i < SHARDS; i++) {
      this.shards.push(new Uint32Array(1 << SHARD_BITS_INITIAL));
      this.bits[i] = SHARD_BITS_INITIAL;
      this.limits[i] = shardLimit(i, SHARD_BITS_INITIAL);
    }
  }

  /**
   * Adds a fingerprint (its low lane into the shard its high lane picks); one already there is
   * not added twice. The slot comes from the low lane's low bits: fingerprints added in
   * ascending order (an index file's sorted column) then land at random slots. (Slots from its
   * high bits would fill a shard front to back, and pile up in long runs while it is small:
   * measured at minutes for 10 million ascending fingerprints.)
   */
  add(low: number, high: number): void {
    const s = high >>> (32 - SHARD_BITS);
    let table = this.shards[s]!;
    let bits = this.bits[s]!;
    if (this.sizes[s]! >= this.limits[s]!) {
      table = this.grow(table, bits + 1);
      this.shards[s] = table;
      this.bits[s] = ++bits;
      this.limits[s] = shardLimit(s, bits);
    }
    const mask = table.length - 1;
    for (let i = slotOf(low, bits); ; i = (i + 1) & mask) {
      const k = table[i]!;
      if (k === low) return;
      if (k === 0) {
        table[i] = low;
        break;
      }
    }
    this.sizes[s]!++;
    this.size++;
  }

  has(low: number, high: number): boolean {
    const s = high >>> (32 - SHARD_BITS);
    const table = this.shards[s]!;
    const mask = table.length - 1;
    for (let i = slotOf(low, this.bits[s]!); ; i = (i + 1) & mask) {
      const k = table[i]!;
      if (k === low) return true;
      if (k === 0) return false;
    }
  }

  private grow(table: Uint32Array, bits: number): Uint32Array {
    const next = new Uint32Array(1 << bits);
    const mask = next.length - 1;
    for (let j = 0; j < table.length; j++) {
      const fp = table[j]!;
      if (fp === 0) continue;
      let i = slotOf(fp, bits);
      while (next[i] !== 0) i = (i + 1) & mask;
      next[i] = fp;
    }
    return next;
  }

  get byteLength(): number {
    let bytes = 0;
    for (const t of this.shards) bytes += t.byteLength;
    return bytes;
  }
}

/** The slot of a fingerprint's low lane in a shard of 2^bits slots: its low bits. */
function slotOf(low: number, bits: number): number {
  return low & ((1 << bits) - 1);
}
