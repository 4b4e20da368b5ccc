import { describe, expect, it } from 'vitest';
import { isWisbridgeError } from './errors.js';
import { FAILPOINTS, parseFailpoints } from './failpoints.js';

function refusal(spec: string): string {
  try {
    parseFailpoints(spec);
  } catch (error) {
    expect(isWisbridgeError(error, 'FAILPOINTS')).toBe(true);
    return (error as Error).message;
  }
  throw new Error(`"${spec}" was accepted`);
}

describe('WISBRIDGE_FAILPOINTS', () => {
  it('names points and their actions, separated by semicolons', () => {
    expect([...parseFailpoints('export.after-rename=kill; drop.before-move=pause(/tmp/x y); export.after-stage=delay(800)')]).toEqual([
      ['export.after-rename', { kind: 'kill' }],
      ['drop.before-move', { kind: 'pause', file: '/tmp/x y' }],
      ['export.after-stage', { kind: 'delay', ms: 800 }],
    ]);
    expect(parseFailpoints('').size).toBe(0);
  });

  it('refuses an unknown point, naming the closest and every known one', () => {
    const message = refusal('export.after-renam=kill');
    expect(message).toContain('unknown failpoint "export.after-renam" (did you mean "export.after-rename"?)');
    for (const name of Object.keys(FAILPOINTS)) expect(message).toContain(name);
  });

  it('refuses a point without an action or with an unknown one', () => {
    expect(refusal('drop.after-link')).toContain('failpoint "drop.after-link" has no action; actions: kill, pause(FILE), delay(MS)');
    expect(refusal('drop.after-link=explode')).toContain('the unknown action "explode"');
    expect(refusal('drop.after-link=pause()')).toContain('the unknown action "pause()"');
    expect(refusal('drop.after-link=delay(soon)')).toContain('the unknown action "delay(soon)"');
  });
});
