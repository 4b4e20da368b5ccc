/**
 * The y axis of a count chart: ticks at round steps (1, 2 or 5 × 10^n) from 0 to the first tick at or above the
 * largest value, at most `most` steps. Counts are whole, so the step is at least 1.
 */
export function niceTicks(max: number, most = 5): number[] {
  const top = Math.max(1, max);
  let step = 1;
  for (let scale = 1; ; scale *= 10) {
    const found = [1, 2, 5].map((m) => m * scale).find((s) => Math.ceil(top / s) <= most);
    if (found !== undefined) {
      step = found;
      break;
    }
  }
  const steps = Math.ceil(top / step);
  return Array.from({ length: steps + 1 }, (_, i) => i * step);
}

/**
 * Which bars of a chart get an x label: every bar with something in it first (an operator reads the time of the bar
 * he sees), then regular ones (`regular`, e.g. every third hour of the zone), each at least `gap` bars from any other.
 */
export function labelledBars(totals: readonly number[], regular: (i: number) => boolean, gap: number): number[] {
  const chosen: number[] = [];
  const free = (i: number) => chosen.every((c) => Math.abs(c - i) >= gap);
  const indices = totals.map((_, i) => i);
  for (const i of [...indices.filter((i) => totals[i] > 0), ...indices.filter(regular)]) if (free(i)) chosen.push(i);
  return chosen.sort((a, b) => a - b);
}
