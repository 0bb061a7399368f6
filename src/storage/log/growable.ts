/** A Float64Array that grows by doubling; slots skipped by `set` hold -1 ("none"). */
export class GrowableF64 {
  array: Float64Array;
  length = 0;
  constructor(capacity = 4) {
    this.array = new Float64Array(capacity);
  }
  /** A copy of `values` (with room to grow). */
  static of(values: ArrayLike<number>): GrowableF64 {
    const g = new GrowableF64(Math.max(4, values.length));
    for (let i = 0; i < values.length; i++) g.array[i] = values[i]!;
    g.length = values.length;
    return g;
  }
  push(value: number): void {
    if (this.length === this.array.length) this.grow(this.length + 1);
    this.array[this.length++] = value;
  }
  set(index: number, value: number): void {
    if (index >= this.array.length) this.grow(index + 1);
    if (index >= this.length) {
      // Appending at the end (the common case) skips nothing: no fill to call.
      if (index > this.length) this.array.fill(-1, this.length, index);
      this.length = index + 1;
    }
    this.array[index] = value;
  }
  get(index: number): number {
    return this.array[index] as number;
  }
  private grow(min: number): void {
    let capacity = Math.max(4, this.array.length * 2);
    while (capacity < min) capacity *= 2;
    const next = new Float64Array(capacity);
    next.set(this.array.subarray(0, this.length));
    this.array = next;
  }
  get byteLength(): number {
    return this.array.byteLength;
  }
}
