import { describe, expect, it } from 'vitest';
import { ENDING_OF, FileLife, FileLifeError, transition, TRANSITIONS, type FileEvent, type FileState } from './file-life.js';
import type { FileOutcome } from './types.js';

const STATES: FileState[] = ['found', 'claimed', 'read', 'sent', 'decided', 'disposed', 'released', 'aborted'];
const EVENTS: FileEvent[] = ['begin', 'read', 'send', 'decide', 'commit', 'rollback', 'abort'];

/** Every legal move, written out: the table must say exactly this. */
const LEGAL: Array<[FileState, FileEvent, FileState]> = [
  ['found', 'begin', 'claimed'], ['found', 'decide', 'decided'], ['found', 'rollback', 'released'], ['found', 'abort', 'aborted'],
  ['claimed', 'read', 'read'], ['claimed', 'decide', 'decided'], ['claimed', 'rollback', 'released'], ['claimed', 'abort', 'aborted'],
  ['read', 'send', 'sent'], ['read', 'decide', 'decided'], ['read', 'rollback', 'released'], ['read', 'abort', 'aborted'],
  ['sent', 'decide', 'decided'], ['sent', 'rollback', 'released'], ['sent', 'abort', 'aborted'],
  ['decided', 'commit', 'disposed'], ['decided', 'rollback', 'released'], ['decided', 'abort', 'aborted'],
];

describe('a file\'s life', () => {
  it('allows every legal move, to the state the table names', () => {
    for (const [from, event, to] of LEGAL) expect(transition(from, event), `${from} ${event}`).toBe(to);
  });

  it('refuses every other move with a FileLifeError naming the state and the move', () => {
    let refused = 0;
    for (const from of STATES) {
      for (const event of EVENTS) {
        if (LEGAL.some(([f, e]) => f === from && e === event)) continue;
        const error = (() => {
          try {
            transition(from, event, 'KORR.csv');
          } catch (e) {
            return e;
          }
          return undefined;
        })();
        expect(error, `${from} ${event}`).toBeInstanceOf(FileLifeError);
        expect(error).toMatchObject({ from, event, file: 'KORR.csv' });
        refused++;
      }
    }
    expect(refused).toBe(STATES.length * EVENTS.length - LEGAL.length);
    expect(Object.values(TRANSITIONS).reduce((n, moves) => n + Object.keys(moves).length, 0)).toBe(LEGAL.length);
  });

  it('refuses a sample of moves that would lose a file: commit before a decision, sending unclaimed, anything after the end', () => {
    expect(() => transition('found', 'commit')).toThrow(/commit is not allowed from found/);
    expect(() => transition('sent', 'commit')).toThrow(FileLifeError);
    expect(() => transition('found', 'send')).toThrow(FileLifeError);
    expect(() => transition('found', 'read')).toThrow(FileLifeError);
    expect(() => transition('disposed', 'rollback')).toThrow(/nothing, the run ended/);
    expect(() => transition('released', 'begin')).toThrow(FileLifeError);
    expect(() => transition('aborted', 'commit')).toThrow(FileLifeError);
    expect(() => transition('decided', 'send')).toThrow(FileLifeError);
  });

  it('a first pass: begin, read, sent, decide, commit; the run ends by commit, as a done file must', () => {
    const life = new FileLife('KORR.csv');
    life.begin();
    life.read();
    life.sent();
    life.decide();
    const report = life.commit({ outcome: 'done' as FileOutcome });
    expect(life.state).toBe('disposed');
    expect(life.settled(report)).toBe(report);
    expect(() => life.rollback(undefined)).toThrow(FileLifeError);
  });

  it('settled refuses a run that did not end, or ended otherwise than its outcome says', () => {
    const unended = new FileLife('a.csv');
    unended.begin();
    expect(() => unended.settled({ outcome: 'done' })).toThrow(/without an ending \(in claimed\)/);
    const interrupted = new FileLife('b.csv');
    interrupted.begin();
    interrupted.read();
    interrupted.rollback(undefined);
    expect(() => interrupted.settled({ outcome: 'done' })).toThrow(/ended by rollback, but its outcome done stands for commit/);
    expect(interrupted.settled({ outcome: 'interrupted' })).toEqual({ outcome: 'interrupted' });
  });

  it('every outcome of a run stands for one ending: concluded ones commit, the ones that stay roll back, the ones left to others abort', () => {
    expect(ENDING_OF).toEqual({
      done: 'commit', failed: 'commit', rejected: 'commit', duplicate: 'commit',
      interrupted: 'rollback', changed: 'rollback', waiting: 'rollback',
      busy: 'abort', lost: 'abort', vanished: 'abort',
    });
  });
});
