import { describe, expect, it } from 'vitest';
import { closestWord, didYouMean, editDistance } from './did-you-mean.js';
import { camelToSnake, snakeToCamel } from './naming.js';

describe('did you mean', () => {
  it('counts insertions, deletions, replacements and swaps', () => {
    expect(editDistance('settle_ms', 'settle_ms')).toBe(0);
    expect(editDistance('setle_ms', 'settle_ms')).toBe(1);
    expect(editDistance('settel_ms', 'settle_ms')).toBe(1);
    expect(editDistance('batch', 'patch')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
  });

  it('suggests the closest known word, ignoring case and separators, and nothing for a word far from all', () => {
    const known = ['settle_ms', 'marker_suffixes', 'poll_interval_ms', 'stability'];
    expect(closestWord('setle_ms', known)).toBe('settle_ms');
    expect(closestWord('pollIntervalMS', known)).toBe('poll_interval_ms');
    expect(closestWord('stabilty', known)).toBe('stability');
    expect(closestWord('color', known)).toBeUndefined();
  });

  it('writes the suggestion as a message suffix, in the caller\'s notation, or nothing', () => {
    expect(didYouMean('confg', ['config', 'help'], (name) => `--${name}`)).toBe('; did you mean --config?');
    expect(didYouMean('numbr', ['string', 'number'])).toBe('; did you mean "number"?');
    expect(didYouMean('pallets', ['products'])).toBe('');
  });
  it('converts between camelCase and snake_case', () => {
    expect(camelToSnake('reconnectInitialDelayMs')).toBe('reconnect_initial_delay_ms');
    expect(camelToSnake('batch_size')).toBe('batch_size');
    expect(snakeToCamel('private_key_path')).toBe('privateKeyPath');
  });
});
