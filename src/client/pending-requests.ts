/**
 * The requests of a session waiting for their answers, by correlation id: a table indexed by
 * the id's low bits, which doubles when two waiting ids share a slot.
 *
 * Why not a Map: with a Map here, a read session's client spent a quarter of its time in the
 * garbage collector. Measured with --trace-gc-nvp at 16 reads in flight: 60-87% of the young
 * generation survived each scavenge (whole 100-event answers, promoted and then left for full
 * collections, 10-40 ms pauses), against 0.1-0.3% with this table, and the client's CPU per
 * read went from 309-371 µs to 144-190 µs (docs/performance-findings.md, "Read sessions").
 * Why the Map kept answers alive was not found (correlation ids only grow, so its table keeps
 * being rebuilt; clearing each settled entry's references did not help); an array whose slot is
 * cleared on settling measured as above.
 *
 * Ids are consecutive, so the table stays about as large as the span between the oldest id
 * still waiting and the newest.
 */
export interface Waiting {
  readonly id: number;
}

export class PendingRequests<Entry extends Waiting> {
  private slots: (Entry | undefined)[] = new Array<Entry | undefined>(64).fill(undefined);
  private mask = 63;
  private count = 0;

  get size(): number {
    return this.count;
  }

  add(entry: Entry): void {
    while (this.slots[entry.id & this.mask] !== undefined) this.grow();
    this.slots[entry.id & this.mask] = entry;
    this.count++;
  }

  /** Removes and returns the entry waiting with this id; undefined when none does. */
  take(id: number): Entry | undefined {
    const at = id & this.mask;
    const entry = this.slots[at];
    if (entry === undefined || entry.id !== id) return undefined;
    this.slots[at] = undefined;
    this.count--;
    return entry;
  }

  /** Removes and returns every entry still waiting. */
  takeAll(): Entry[] {
    const all = this.slots.filter((entry): entry is Entry => entry !== undefined);
    this.slots.fill(undefined);
    this.count = 0;
    return all;
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Array<Entry | undefined>(old.length * 2).fill(undefined);
    this.mask = this.slots.length - 1;
    for (const entry of old) if (entry !== undefined) this.slots[entry.id & this.mask] = entry;
  }
}
