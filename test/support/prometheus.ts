/**
 * Just enough of Prometheus's text exposition format and of PromQL to check that rules and dashboards name series a
 * bridge really exports: the metric families and series of a scrape, and the selectors of an expression.
 */

export interface Scrape {
  /** Family name → type (counter, gauge, histogram, summary, untyped), from the `# TYPE` lines. */
  families: Map<string, string>;
  /** Every sample: its name and labels. */
  series: Array<{ name: string; labels: Record<string, string> }>;
}

const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;
const unescape = (value: string) => value.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));

export function parseScrape(text: string): Scrape {
  const families = new Map<string, string>();
  const series: Scrape['series'] = [];
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) families.set(type[1], type[2]);
    if (line === '' || line.startsWith('#')) continue;
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})? \S+$/.exec(line);
    if (!sample) throw new Error(`not a sample line of the exposition format: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, name, value] of (sample[2] ?? '').matchAll(LABEL)) labels[name] = unescape(value);
    series.push({ name: sample[1], labels });
  }
  return { families, series };
}

/** The family a sample name belongs to: itself, or a histogram's or summary's `_bucket`, `_sum`, `_count`. */
export function familyOf(scrape: Scrape, name: string): string | undefined {
  if (scrape.families.has(name)) return name;
  const base = name.replace(/_(bucket|sum|count)$/, '');
  const type = scrape.families.get(base);
  return base !== name && (type === 'histogram' || type === 'summary') ? base : undefined;
}

export interface Matcher { label: string; op: '=' | '!=' | '=~' | '!~'; value: string }
export interface Selector { metric: string; matchers: Matcher[] }

/**
 * The selectors of a PromQL expression whose metric starts with one of `prefixes` (`wisbridge_`, `up`), and the
 * label names its `by (...)`/`without (...)` clauses group on. Quoted strings are read only inside braces.
 */
export function readExpression(expr: string, prefixes: string[]): { selectors: Selector[]; grouping: string[] } {
  const selectors: Selector[] = [];
  const names = /([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(\{(?:[^}"]|"(?:[^"\\]|\\.)*")*\})?/g;
  for (const [, metric, braces] of expr.matchAll(names)) {
    if (!prefixes.some((p) => metric === p || (p.endsWith('_') && metric.startsWith(p)))) continue;
    const matchers: Matcher[] = [];
    for (const [, label, op, value] of (braces ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"/g)) {
      matchers.push({ label, op: op as Matcher['op'], value: unescape(value) });
    }
    selectors.push({ metric, matchers });
  }
  const grouping = [...expr.matchAll(/\b(?:by|without)\s*\(([^)]*)\)/g)].flatMap(([, list]) => list.split(',').map((l) => l.trim()).filter(Boolean));
  return { selectors, grouping };
}
