import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { parse as parseYaml } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { openJournal } from '../../src/journal/index.js';
import { ManualClock } from '../../src/service/clock.js';
import { flowRunners } from '../../src/service/runners.js';
import { BridgeService } from '../../src/service/service.js';
import { ensureAptPackage } from '../support/apt.js';
import { useEmulator } from '../support/emulator.js';
import { familyOf, parseScrape, readExpression, type Scrape, type Selector } from '../support/prometheus.js';
import { adjustmentsJob, baseConfig, korrFile, memoryLogger, tempConfig, unlistableDrop, until, useCleanups } from './support.js';

/**
 * deploy/prometheus/wisbridge-rules.yml and deploy/grafana/wisbridge-dashboard.json against the series a running
 * bridge exports on /metrics, and the rules through Prometheus's own promtool (Debian's `prometheus` package).
 */
const emu = useEmulator({ resetEachTest: true });
const cleanups = useCleanups();
const root = resolve(import.meta.dirname, '../..');
const RULES = join(root, 'deploy/prometheus/wisbridge-rules.yml');
const RULE_TESTS = join(root, 'deploy/prometheus/wisbridge-rules.test.yml');
const DASHBOARD = join(root, 'deploy/grafana/wisbridge-dashboard.json');
const PROMTOOL = '/usr/bin/promtool';
/** Series Prometheus makes itself for every target, and the labels it gives every series (job, instance). */
const PROMETHEUS_OWN = ['up'];
const TARGET_LABELS = ['job', 'instance'];

interface Rule { alert: string; expr: string; for?: string; labels: Record<string, string>; annotations: Record<string, string> }
interface Panel { id: number; type: string; title: string; datasource: { type: string; uid: string }; targets: Array<{ refId: string; expr: string; datasource: { uid: string } }> }

const rules = (): Rule[] => (parseYaml(readFileSync(RULES, 'utf8')) as { groups: Array<{ rules: Rule[] }> }).groups.flatMap((g) => g.rules);
const dashboard = () => JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { schemaVersion: number; uid: string; panels: Panel[]; templating: { list: Array<{ name: string; type: string; query: unknown }> } };

beforeAll(() => {
  process.env.WISBRIDGE_TEST_TOKEN = emu.token;
});

/**
 * The job `stock` on the drop `wms` expecting a STOCK file by 06:00 Berlin, and the job `faraway` on the drop `gone`
 * whose folder does not exist (its inbox cannot be listed).
 */
const monitoredConfig = (url: string) => `${baseConfig(url)}${unlistableDrop('gone')}inbound:
${adjustmentsJob('stock', 'wms', `    expect:
      - pattern: "^STOCK_\\\\d{8}\\\\.csv$"
        cutoff: { cron: "0 6 * * *", timezone: Europe/Berlin }
`)}${adjustmentsJob('faraway', 'gone')}metrics: { host: 127.0.0.1, port: 0 }
`;

/** A journal that lists an instance on another host whose heartbeat stopped an hour ago without a graceful stop. */
async function journalWithLostInstance(path: string): Promise<void> {
  const lost = await openJournal(path, { instance: { id: 'bridge-gone-4242-abcdef', host: 'bridge-gone', pid: 4242, version: 'test' }, leaseMs: 30_000 });
  await lost.registerInstance();
  await lost.close();
  const hourAgo = new Date(Date.now() - 3600_000).toISOString();
  const db = new Database(path);
  db.prepare('UPDATE instances SET started_at = ?, heartbeat_at = ? WHERE id = ?').run(hourAgo, hourAgo, 'bridge-gone-4242-abcdef');
  db.close();
}

/** A bridge that processed a file with a failed row and a rejected file, missed an expected file, and cannot list a drop. */
async function scrapeRunningBridge(): Promise<{ scrape: Scrape; text: string; id: string }> {
  const env = await tempConfig(monitoredConfig(emu.url));
  cleanups.push(env.cleanup);
  await journalWithLostInstance(join(env.dir, 'journal.sqlite'));
  const clock = new ManualClock(Date.parse('2026-11-22T03:00:00Z'));
  const bridge = new BridgeService(env.loaded, { runners: flowRunners, logger: memoryLogger().logger, clock });
  cleanups.push(() => bridge.stop('test'));
  await bridge.start();
  const inbox = join(env.dir, 'drop', 'inbox');
  writeFileSync(join(inbox, 'KORR_failed.csv'), korrFile([['SKU-00001', 1, 'F-1'], ['SKU-99999', 1, 'F-2']]));
  writeFileSync(join(inbox, 'KORR_rejected.csv'), 'Nummer;Anzahl\r\n1;2\r\n');
  // 06:00 Berlin is 05:00 UTC: no STOCK file came.
  await clock.advanceTo(Date.parse('2026-11-22T05:00:00Z'));
  const get = async () => (await fetch(`${bridge.url}/metrics`)).text();
  const wanted = ['outcome="failed"', 'outcome="rejected"', 'wisbridge_expected_file_missing{', 'wisbridge_drop_up{drop="gone"', 'wisbridge_drop_list_failures_total{'];
  const text = await until(async () => {
    const t = await get();
    return wanted.every((w) => t.includes(w)) ? t : undefined;
  }, 'the failed and rejected files, the missed file and the drop that cannot be listed on /metrics');
  return { scrape: parseScrape(text), text, id: bridge.instance.id };
}

/** Why a selector finds nothing among the scraped series (undefined when it finds one, as Prometheus would). */
function mismatch(scrape: Scrape, selector: Selector): string | undefined {
  if (PROMETHEUS_OWN.includes(selector.metric)) return undefined;
  if (!familyOf(scrape, selector.metric)) return `${selector.metric} is not exported`;
  const candidates = scrape.series.filter((s) => s.name === selector.metric);
  if (candidates.length === 0) return `${selector.metric} has no series`;
  for (const m of selector.matchers) {
    // A Grafana variable ($job) matches whatever the operator picks: only the label must exist.
    const found = candidates.some((s) => {
      if (TARGET_LABELS.includes(m.label) && !(m.label in s.labels)) return m.value.includes('$');
      const value = s.labels[m.label];
      if (value === undefined) return false;
      if (m.value.includes('$') || m.op === '!=' || m.op === '!~') return true;
      return m.op === '=' ? value === m.value : new RegExp(`^(?:${m.value})$`).test(value);
    });
    if (!found) return `no series of ${selector.metric} has ${m.label}${m.op}"${m.value}"`;
  }
  return undefined;
}

/** Every problem of one expression: selectors that find nothing, grouping labels that no series of it carries. */
function problemsOf(scrape: Scrape, expr: string, extraLabels: string[] = []): string[] {
  const { selectors, grouping } = readExpression(expr, ['wisbridge_', ...PROMETHEUS_OWN]);
  if (selectors.length === 0) return [`no metric of the bridge in: ${expr}`];
  const problems = selectors.map((s) => mismatch(scrape, s)).filter((p): p is string => p !== undefined);
  const carried = new Set([...TARGET_LABELS, ...scrape.series.filter((s) => selectors.some((sel) => sel.metric === s.name)).flatMap((s) => Object.keys(s.labels))]);
  for (const label of [...grouping, ...extraLabels]) if (!carried.has(label)) problems.push(`no series of ${selectors.map((s) => s.metric).join(', ')} carries the label ${label}`);
  return problems;
}

describe('the alerting rules and the dashboard name what the bridge exports', () => {
  it('every selector of every rule and every panel finds series on /metrics of a running bridge', async () => {
    const { scrape, text, id } = await scrapeRunningBridge();
    // The lost instance of the journal's list is counted, this one is live.
    expect(text.split('\n').filter((l) => l.startsWith('wisbridge_instances{')).sort()).toEqual([
      `wisbridge_instances{state="live",instance="${id}"} 1`, `wisbridge_instances{state="lost",instance="${id}"} 1`,
    ]);
    const problems: string[] = [];
    for (const rule of rules()) {
      const templated = [...Object.values(rule.annotations).join(' ').matchAll(/\$labels\.(\w+)/g)].map(([, l]) => l);
      problems.push(...problemsOf(scrape, rule.expr, templated).map((p) => `rule ${rule.alert}: ${p}`));
    }
    for (const panel of dashboard().panels) {
      for (const target of panel.targets) problems.push(...problemsOf(scrape, target.expr).map((p) => `panel "${panel.title}" ${target.refId}: ${p}`));
    }
    expect(problems).toEqual([]);
  });

  it('finds a misspelled metric, a label value no series has and a grouping label no series carries', async () => {
    const { scrape } = await scrapeRunningBridge();
    expect(problemsOf(scrape, 'wisbridge_file_total > 0')).toEqual(['wisbridge_file_total is not exported']);
    expect(problemsOf(scrape, 'increase(wisbridge_files_total{outcome="faild"}[5m]) > 0')).toEqual(['no series of wisbridge_files_total has outcome="faild"']);
    expect(problemsOf(scrape, 'sum by (drop) (wisbridge_files_total)')).toEqual(['no series of wisbridge_files_total carries the label drop']);
    expect(problemsOf(scrape, 'histogram_quantile(0.9, sum by (le) (rate(wisbridge_http_request_duration_seconds_bucket[5m])))')).toEqual([]);
  });
});

describe('the alerting rules and the dashboard as files', () => {
  const headings = readFileSync(join(root, 'docs/operations.md'), 'utf8').split('\n').filter((l) => l.startsWith('#')).map((l) => l.replace(/^#+\s*/, ''));

  it('each alert has a severity, a summary and a description that names its runbook section of docs/operations.md, and a promtool test', () => {
    const tested = readFileSync(RULE_TESTS, 'utf8');
    const alerts = rules();
    expect(alerts.map((r) => r.alert)).toEqual(expect.arrayContaining([
      'WisbridgeInstanceLost', 'WisbridgeFileFailed', 'WisbridgeUncertainRowsOpen', 'WisbridgeExpectedFileMissed', 'WisbridgeDropUnreachable', 'WisbridgeJournalUnreachable',
    ]));
    for (const rule of alerts) {
      expect(['critical', 'warning'], rule.alert).toContain(rule.labels.severity);
      expect(rule.annotations.summary, rule.alert).toBeTruthy();
      const runbook = /Runbook: docs\/operations\.md, "([^"]+)"/.exec(rule.annotations.description)?.[1];
      expect(headings, `${rule.alert}: ${runbook}`).toContain(runbook);
      expect(tested, rule.alert).toContain(`alertname: ${rule.alert}\n`);
    }
  });

  it('the dashboard is a Grafana dashboard over a Prometheus data source variable', () => {
    const d = dashboard();
    expect(d.schemaVersion).toBeGreaterThanOrEqual(36);
    expect(d.uid).toBe('wisbridge');
    expect(d.templating.list).toContainEqual(expect.objectContaining({ name: 'datasource', type: 'datasource', query: 'prometheus' }));
    expect(new Set(d.panels.map((p) => p.id)).size).toBe(d.panels.length);
    for (const panel of d.panels) {
      expect(panel.datasource, panel.title).toEqual({ type: 'prometheus', uid: '${datasource}' });
      expect(panel.targets.length, panel.title).toBeGreaterThan(0);
      for (const target of panel.targets) expect(target.datasource.uid, panel.title).toBe('${datasource}');
    }
    const titles = d.panels.map((p) => p.title);
    for (const title of ['Files by outcome', 'Rows by status', 'Uncertain rows open', 'Requests in flight and waiting', 'Journal commit time', 'Drop health', 'Instances']) expect(titles).toContain(title);
  });
});

describe('promtool (Debian package prometheus)', () => {
  beforeAll(async () => {
    try {
      await ensureAptPackage('prometheus', PROMTOOL);
    } catch (error) {
      throw new Error(`promtool checks deploy/prometheus/wisbridge-rules.yml; it comes with Debian's prometheus package, which apt-get could not install: ${(error as Error).message}`);
    }
  }, 900_000);

  const promtool = (...args: string[]) => spawnSync(PROMTOOL, args, { encoding: 'utf8' });

  it('checks the rules file', () => {
    const run = promtool('check', 'rules', RULES);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(`SUCCESS: ${rules().length} rules found`);
  });

  it('runs the rules\' unit tests: each alert fires when it should, and only then', () => {
    const run = promtool('test', 'rules', RULE_TESTS);
    expect(run.stdout + run.stderr).toContain('SUCCESS');
    expect(run.status).toBe(0);
  });

  it('the unit tests fail for a rule that misses a job\'s first failed file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'wisbridge-rules-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    copyFileSync(RULE_TESTS, join(dir, 'wisbridge-rules.test.yml'));
    const weakened = readFileSync(RULES, 'utf8').replace(/\n\s*or \(wisbridge_files_total\{outcome="failed"\} unless [^\n]*/, '');
    expect(weakened).not.toBe(readFileSync(RULES, 'utf8'));
    writeFileSync(join(dir, 'wisbridge-rules.yml'), weakened);
    const run = promtool('test', 'rules', join(dir, 'wisbridge-rules.test.yml'));
    expect(run.status).not.toBe(0);
    expect(run.stdout + run.stderr).toMatch(/alertname: WisbridgeFileFailed, time: 3m/);
  });
});
