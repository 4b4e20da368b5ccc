import { describe, expect, it } from 'vitest';
import { contentDisposition } from './disposition.js';

describe('contentDisposition', () => {
  it('a plain ASCII name: filename only', () => {
    expect(contentDisposition('KORR_b.result.csv')).toBe('attachment; filename="KORR_b.result.csv"');
  });

  it('a name beyond ASCII: an ASCII fallback and filename* in UTF-8, both valid header text', () => {
    const header = contentDisposition('KORR_€_日本_ü.result.csv');
    expect(header).toBe(`attachment; filename="KORR_______.result.csv"; filename*=UTF-8''KORR_%E2%82%AC_%E6%97%A5%E6%9C%AC_%C3%BC.result.csv`);
    expect(/^[\x20-\x7e]+$/.test(header)).toBe(true);
  });

  it('quotes, backslashes, line breaks and RFC 8187 specials cannot break out of the parameters', () => {
    const header = contentDisposition('a"b\\c\r\nd\'(e)*.csv');
    expect(header).toBe(`attachment; filename="a_b_c__d'(e)*.csv"; filename*=UTF-8''a%22b%5Cc%0D%0Ad%27%28e%29%2A.csv`);
    expect(decodeURIComponent(header.split("UTF-8''")[1])).toBe('a"b\\c\r\nd\'(e)*.csv');
  });
});
