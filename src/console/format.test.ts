import { afterEach, describe, expect, it } from 'vitest';
import { at, bytes, num, setDisplayZone, when, zoneLabel } from './html.js';

describe('console formats', () => {
  afterEach(() => setDisplayZone(undefined));

  it('times in the configured zone, UTC on hover; the machine\'s zone by default', () => {
    setDisplayZone('Europe/Berlin');
    expect(zoneLabel()).toBe('Europe/Berlin');
    expect(when('2026-07-01T22:30:00.000Z')).toBe('2026-07-02 00:30:00'); // summer time: +2
    expect(when('2026-11-24T23:10:00.000Z')).toBe('2026-11-25 00:10:00');
    expect(at('2026-11-24T23:10:00.000Z').text).toBe('<time datetime="2026-11-24T23:10:00.000Z" title="2026-11-24 23:10:00 UTC">2026-11-25 00:10:00</time>');
    setDisplayZone(undefined);
    expect(zoneLabel()).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
    expect(() => setDisplayZone('Mars/Olympus')).toThrow(RangeError);
  });

  it('numbers with thousands separators, sizes in KiB and MiB', () => {
    expect(num(10_000_000)).toBe('10,000,000');
    expect(num(999)).toBe('999');
    expect(num(undefined)).toBe('');
    expect(bytes(1536)).toBe('1.5 KiB');
    expect(bytes(152 * 1024 ** 2)).toBe('152.0 MiB');
  });
});
