import { describe, expect, it } from 'vitest';
import { WisbridgeError } from '../errors.js';
import { Writable } from 'node:stream';
import { createLogger } from '../log.js';
import { ManualClock } from './clock.js';
import { isDropUnreachable } from '../drops/index.js';
import { DropHealth } from './drop-health.js';
import { ServiceMetrics } from './metrics.js';

function memoryLogger() {
  const records: Array<Record<string, unknown>> = [];
  const destination = new Writable({ write(chunk, _e, cb) { for (const l of String(chunk).split('\n')) if (l.trim()) records.push(JSON.parse(l)); cb(); } });
  return { logger: createLogger({ level: 'debug', pretty: false, destination }), records };
}

describe('DropHealth', () => {
  it('logs a failure at error level when it starts or changes, counts the rest, and notes the recovery once', async () => {
    const metrics = new ServiceMetrics(async () => undefined, { defaultMetrics: false });
    const { logger, records } = memoryLogger();
    const health = new DropHealth(metrics, logger, new ManualClock(Date.parse('2026-11-24T02:00:00Z')));
    const refused = new WisbridgeError('DROP_AUTH', 'drop wms: the SFTP server refused the credentials', { details: { drop: 'wms' } });
    health.failed('wms', refused);
    health.failed('wms', refused);
    expect(health.problems).toEqual([{ drop: 'wms', reason: `DROP_AUTH: ${refused.message}`, since: '2026-11-24T02:00:00.000Z', failures: 2 }]);
    health.failed('wms', new WisbridgeError('DROP_CONNECT', 'drop wms: connection refused', { details: { drop: 'wms' } }));
    expect(records.filter((r) => r.level === 50).map((r) => r.err)).toEqual([`DROP_AUTH: ${refused.message}`, 'DROP_CONNECT: drop wms: connection refused']);
    expect(await metrics.text()).toContain('wisbridge_drop_list_failures_total{drop="wms",code="DROP_AUTH"} 2');
    health.listed('wms');
    health.listed('wms');
    expect(health.problems).toEqual([]);
    expect(records.filter((r) => r.msg === 'the drop can be listed again')).toHaveLength(1);
    expect(await metrics.text()).toContain('wisbridge_drop_up{drop="wms"} 1');
  });

  it('only drop-level errors count as unreachable', () => {
    expect(isDropUnreachable(new WisbridgeError('DROP_HOST_KEY', 'x', { details: { drop: 'wms' } }))).toBe(true);
    expect(isDropUnreachable(new WisbridgeError('UNAVAILABLE', 'x', { details: { endpoint: 'customerShipments.list', outcome: 'not-applied' } }))).toBe(false);
    expect(isDropUnreachable(new WisbridgeError('FILE_LAYOUT', 'x'))).toBe(false);
    expect(isDropUnreachable(new Error('x'))).toBe(false);
  });
});
