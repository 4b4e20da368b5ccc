import { getHeapSpaceStatistics } from 'node:v8';

/** The size this isolate's young generation grows to under a stream of short-lived objects: twice its semi-space. */
export function newSpaceMb(): number {
  let kept: unknown[] = [];
  for (let i = 0; i < 400_000; i++) {
    kept.push({ i, text: `row ${i}`, pair: [i, i] });
    if (kept.length > 50_000) kept = [];
  }
  return getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')!.space_size / (1 << 20);
}
