import { describe, expect, it } from 'vitest';
import { duration, html, query, raw } from './html.js';

describe('console html', () => {
  it('escapes every value (file names, service messages) unless it is already html', () => {
    const name = `KORR_<script>alert("x")</script>'.csv`;
    expect(html`<td>${name}</td>`.text).toBe('<td>KORR_&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39;.csv</td>');
    expect(html`<a href="${'/x?a=1&b=2'}">${raw('<b>ok</b>')}</a>`.text).toBe('<a href="/x?a=1&amp;b=2"><b>ok</b></a>');
    expect(html`${[html`<i>${'&'}</i>`, null, undefined, false, 0]}`.text).toBe('<i>&amp;</i>0');
  });

  it('builds query strings from the set values and shows durations', () => {
    expect(query({ status: 'failed', name: '', job: undefined, before: 12 })).toBe('?status=failed&before=12');
    expect(query({})).toBe('');
    expect(duration('2026-01-01T00:00:00Z', '2026-01-01T00:00:01.500Z')).toBe('1.5 s');
    expect(duration('2026-01-01T00:00:00Z', null)).toBe('');
  });
});
