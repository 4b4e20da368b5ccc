/**
 * The control numbers seen so far in one envelope, to find a repeated one. Digits are kept as ranges of consecutive
 * numbers (per written length: `0001` and `001` differ), so the usual 0001, 0002, … of a group of a million sets
 * costs one range, not a million entries; anything else is kept as it is.
 */
export class ControlNumbers {
  /** Per length, sorted disjoint ranges [low, high] as a flat array: low0, high0, low1, high1, … */
  private readonly ranges = new Map<number, number[]>();
  private readonly others = new Set<string>();

  /** Records `control`; false when it was seen before. */
  add(control: string): boolean {
    if (!/^\d{1,15}$/.test(control)) {
      if (this.others.has(control)) return false;
      this.others.add(control);
      return true;
    }
    const value = Number(control);
    let list = this.ranges.get(control.length);
    if (list === undefined) this.ranges.set(control.length, (list = []));
    // The first range whose high end is at or above value - 1 (the one value joins or falls in, if any).
    let lo = 0;
    let hi = list.length / 2;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (list[2 * mid + 1] < value - 1) lo = mid + 1;
      else hi = mid;
    }
    const at = 2 * lo;
    if (at < list.length && list[at] <= value && value <= list[at + 1]) return false;
    if (at < list.length && list[at + 1] === value - 1) {
      list[at + 1] = value;
      // Joined the next range?
      if (at + 2 < list.length && list[at + 2] === value + 1) list.splice(at + 1, 2);
    } else if (at < list.length && list[at] === value + 1) {
      list[at] = value;
    } else {
      list.splice(at, 0, value, value);
    }
    return true;
  }

  /** How many ranges and other numbers it holds (what it costs). */
  get size(): number {
    let ranges = 0;
    for (const list of this.ranges.values()) ranges += list.length / 2;
    return ranges + this.others.size;
  }
}
