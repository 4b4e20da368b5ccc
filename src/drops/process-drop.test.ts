import { describe, expect, it } from 'vitest';
import { processDrop, processDropName, processDropOptions, processDropService } from './process-drop.js';

describe('the drop wisbridge process makes of a folder', () => {
  it('its recorded name gives back its folders, with and without --out; other names are not its', () => {
    expect(processDropName('/in', '/in')).toBe('process:/in');
    expect(processDropOptions('process:/in')).toMatchObject({ type: 'local', root: '/in', inbox: '.', outbox: '/in' });
    expect(processDropName('/in', '/out')).toBe('process:/in → /out');
    expect(processDropOptions('process:/in → /out')).toMatchObject({ root: '/in', outbox: '/out' });
    expect(processDropOptions('wms')).toBeUndefined();
    expect(processDrop('/in', '/out')).toEqual(processDropOptions('process:/in → /out'));
  });

  it('its recorded name says the service the files were sent to, whatever that service is called; an older name says none', () => {
    expect(processDropName('/in', '/out', 'wis')).toBe('process@wis:/in → /out');
    expect(processDropOptions('process@wis:/in → /out')).toMatchObject({ root: '/in', outbox: '/out' });
    expect(processDropService('process@wis:/in → /out')).toBe('wis');
    const odd = processDropName('/in', '/in', 'eu: main@2');
    expect(processDropOptions(odd)).toMatchObject({ root: '/in', outbox: '/in' });
    expect(processDropService(odd)).toBe('eu: main@2');
    expect(processDropService('process:/in')).toBeUndefined();
    expect(processDropService('wms')).toBeUndefined();
  });
});
