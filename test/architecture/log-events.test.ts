import { describe, expect, it } from 'vitest';
import { LOG_EVENTS } from '../../src/log.js';
import { REPOSITORY, sourceModules } from './import-rules.js';

// A record's `event` code is what tests and log searches wait on: one list of them (LOG_EVENTS in src/log.ts), every
// code logged by some module, and no module logging a code the list lacks.

/** `module: code` of every `event: '…'` a module of src/ writes into a log record. */
export function eventsLogged(sources: ReadonlyMap<string, string>): Array<{ module: string; code: string }> {
  const found: Array<{ module: string; code: string }> = [];
  for (const [module, text] of sources) {
    for (const match of text.matchAll(/\bevent: '([^']+)'/g)) found.push({ module, code: match[1] });
  }
  return found;
}

describe('log events: one list of codes', () => {
  const logged = eventsLogged(sourceModules(REPOSITORY)).filter((e) => e.module !== 'src/log.ts');

  it('every code a module logs is listed in LOG_EVENTS', () => {
    expect(logged.filter((e) => !(LOG_EVENTS as readonly string[]).includes(e.code))).toEqual([]);
  });

  it('every listed code is logged by a module', () => {
    expect(LOG_EVENTS.filter((code) => !logged.some((e) => e.code === code))).toEqual([]);
  });

  it('reads the codes of a log call', () => {
    const sources = new Map([['src/a.ts', "logger.info({ event: 'file.claimed', fileId }, 'processing file');\nconst x = { events: 'no' };"]]);
    expect(eventsLogged(sources)).toEqual([{ module: 'src/a.ts', code: 'file.claimed' }]);
  });
});
