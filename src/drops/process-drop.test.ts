import { describe, expect, it } from 'vitest';
import { processDrop, processDropName, processDropOptions } from './process-drop.js';

describe('the drop wisbridge process makes of a folder', () => {
  it('its recorded name gives back its folders, with and without --out; other names are not its', () => {
    expect(processDropName('/in', '/in')).toBe('process:/in');
    expect(processDropOptions('process:/in')).toMatchObject({ type: 'local', root: '/in', inbox: '.', outbox: '/in' });
    expect(processDropName('/in', '/out')).toBe('process:/in → /out');
    expect(processDropOptions('process:/in → /out')).toMatchObject({ root: '/in', outbox: '/out' });
    expect(processDropOptions('wms')).toBeUndefined();
    expect(processDrop('/in', '/out')).toEqual(processDropOptions('process:/in → /out'));
  });
});
