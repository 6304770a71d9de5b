/** A queue of values read with `for await`: pushed by message handlers, ended by close() or fail(). */
export class Channel<T> implements AsyncIterable<T> {
  private readonly values: T[] = [];
  private waiting: (() => void) | undefined;
  private closed = false;
  private failure: { error: unknown } | undefined;

  get size(): number {
    return this.values.length;
  }

  push(value: T): void {
    this.values.push(value);
    this.wake();
  }

  close(): void {
    this.closed = true;
    this.wake();
  }

  fail(error: unknown): void {
    this.failure ??= { error };
    this.wake();
  }

  private wake(): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    for (;;) {
      if (this.failure) throw this.failure.error;
      if (this.values.length > 0) {
        yield this.values.shift()!;
        continue;
      }
      if (this.closed) return;
      await new Promise<void>((resolve) => {
        this.waiting = resolve;
      });
    }
  }
}
