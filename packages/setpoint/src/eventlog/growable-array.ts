/** An append-only Float64Array that doubles when full: 8 bytes per task instead of a boxed array. */
export class GrowableFloat64Array {
  private data = new Float64Array(16);
  length = 0;

  push(value: number): void {
    if (this.length === this.data.length) {
      const bigger = new Float64Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = value;
  }

  /** A view of the filled part (shares memory; copy before keeping it past further pushes). */
  view(): Float64Array {
    return this.data.subarray(0, this.length);
  }
}
