// Byte buffers reused for what an export holds a page at a time: each response body, and the CSV read out of
// it. A new buffer a page held memory V8 frees only once it collects the buffer's wrapper; a wrapper that
// outlived two young collections (a page waiting its turn) held its bytes until a full collection, and the
// freed memory stayed with the allocator: the peak RSS grew with the row count (docs/benchmarks.md). Pooled,
// an export holds as many buffers as pages at once, whatever the row count.

/** Sizes are rounded up to this, so that a page somewhat larger than the last still fits a buffer. */
const GRAIN = 64 * 1024;

export class BufferPool {
  private readonly free: ArrayBuffer[] = [];

  /** `keep`: free buffers kept at most (more given back are left to the garbage collector). */
  constructor(private readonly keep: number) {}

  /** A buffer of at least `size` bytes, which is the caller's until given back. */
  take(size: number): Buffer {
    const i = this.free.findIndex((b) => b.byteLength >= size);
    const bytes =
      i >= 0 ? this.free.splice(i, 1)[0]! : new ArrayBuffer(Math.ceil(size / GRAIN) * GRAIN || GRAIN);
    return Buffer.from(bytes);
  }

  /** Gives back the buffer `view` lies in (one that `take` returned, or a part of it): it is reused. */
  give(view: Uint8Array): void {
    const bytes = view.buffer as ArrayBuffer;
    // Given twice, a buffer would be taken twice, by two holders at once.
    if (this.free.length < this.keep && !this.free.includes(bytes)) this.free.push(bytes);
  }
}
