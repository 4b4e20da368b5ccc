import type { LineOutcome } from './types.js';

// The result file's read merges the line outcomes of item blocks and single items in line order (operator.ts).

/**
 * Reads pages on demand and hands out their entries one at a time. `fill` loads the next page once this one is used
 * up; the reader awaits it only when `empty`, so the entries of a page cost no promise each.
 */
export class Pager<T> {
  private page: T[] = [];
  private index = 0;
  private done = false;
  private last: T | undefined;

  constructor(private readonly load: (last: T | undefined) => Promise<T[]>, private readonly lineOf: (entry: T) => number) {}

  get empty(): boolean {
    return this.index >= this.page.length && !this.done;
  }

  async fill(): Promise<void> {
    this.page = await this.load(this.last);
    this.index = 0;
    if (this.page.length === 0) this.done = true;
  }

  /** The first line of the next entry (after fill), or +Infinity when none is left. */
  peekLine(): number {
    return this.index < this.page.length ? this.lineOf(this.page[this.index]) : Number.POSITIVE_INFINITY;
  }

  take(): T {
    this.last = this.page[this.index++];
    return this.last;
  }
}

/** A min-heap of line outcomes by line. */
export class LineHeap {
  private readonly items: LineOutcome[] = [];
  get size(): number {
    return this.items.length;
  }
  get top(): LineOutcome {
    return this.items[0];
  }
  push(o: LineOutcome): void {
    const heap = this.items;
    heap.push(o);
    for (let i = heap.length - 1; i > 0;) {
      const parent = (i - 1) >> 1;
      if (heap[parent].line <= heap[i].line) break;
      [heap[parent], heap[i]] = [heap[i], heap[parent]];
      i = parent;
    }
  }
  pop(): LineOutcome {
    const heap = this.items;
    const top = heap[0];
    const last = heap.pop() as LineOutcome;
    if (heap.length > 0) {
      heap[0] = last;
      for (let i = 0; ;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && heap[l].line < heap[m].line) m = l;
        if (r < heap.length && heap[r].line < heap[m].line) m = r;
        if (m === i) break;
        [heap[m], heap[i]] = [heap[i], heap[m]];
        i = m;
      }
    }
    return top;
  }
}
