import { describe, expect, it } from 'vitest';
import type { InstanceRecord } from '../contract.js';
import { instanceTimeline } from './instance-states.js';

const HOUR = 3_600_000;
const H = Date.parse('2026-11-24T22:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const instance = (id: string, host: string, started: number, heard: number, stopped: number | null): InstanceRecord => ({
  id, host, pid: 1, version: 't', startedAt: iso(started), heartbeatAt: iso(heard), stoppedAt: stopped === null ? null : iso(stopped), files: 0, jobs: 0,
});

describe('instanceTimeline', () => {
  // a runs on from 19:10; b from 19:10 was killed at 21:10 (lost since); c ran 17:05-20:20; d from 17:00 was killed at
  // 18:30 and its host runs e since 19:00. A bucket counts the instances at its end.
  const list = [
    instance('a', 'vm-a', H - 3 * HOUR + 600_000, H + 1_800_000, null),
    instance('b', 'vm-b', H - 3 * HOUR + 600_000, H - HOUR + 600_000, null),
    instance('c', 'vm-c', H - 5 * HOUR + 300_000, H - 2 * HOUR + 1_200_000, H - 2 * HOUR + 1_200_000),
    instance('d', 'vm-d', H - 5 * HOUR, H - 3.5 * HOUR, null),
    instance('e', 'vm-d', H - 3 * HOUR, H + 1_800_000, null),
  ];
  const starts = Array.from({ length: 7 }, (_, i) => iso(H - (6 - i) * HOUR));

  it('counts each instance live or lost at the end of each hour, the hour under way at now', () => {
    const now = H + 1_800_000;
    expect(instanceTimeline(list, 30_000, starts, HOUR, now).map((b) => [b.start.slice(11, 13), b.alive, b.lost])).toEqual([
      ['16', 1, 0], // at 17:00: d started
      ['17', 2, 0], // at 18:00: c too
      ['18', 2, 0], // at 19:00: d silent since 18:30, but e started on its host: d is not counted, e is live
      ['19', 4, 0], // at 20:00: a, b, c, e
      ['20', 3, 0], // at 21:00: c stopped at 20:20
      ['21', 2, 1], // at 22:00: b silent since 21:10
      ['22', 2, 1], // now, 22:30
    ]);
  });

  it('a lease longer than the silence keeps an instance live', () => {
    const [last] = instanceTimeline(list, 2 * HOUR, starts.slice(-1), HOUR, H + 1_800_000);
    expect(last).toEqual({ start: starts.at(-1), alive: 3, lost: 0 });
  });
});
