import { Cron } from 'croner';
import { isTimeZone } from '../util/time-zone.js';
import { parseYamlWithSchema, type PositionedYaml, type YamlProblem } from '../util/yaml-document.js';
import { configSchema, type Config } from './schema.js';

/*
 * The configuration's check: its YAML parsed and validated against the configuration's schema. Loaded only when a
 * text is not in the cache of checked ones (load.ts, checkConfig): a command that starts on an unchanged file loads
 * neither the YAML parser nor the schemas (docs/performance.md, start-up).
 */

export type ConfigTextCheck = { config?: Config; problems: YamlProblem[]; warnings: YamlProblem[]; doc?: PositionedYaml };

/** The last text checked and what it gave: `run` and `batch` read the file once to load it and once to check it ready. */
let lastCheck: { text: string; file: string; check: ConfigTextCheck } | undefined;

/**
 * Validates a configuration text; returns every problem with its position (nothing thrown). The same text and name
 * checked again give the same configuration (read, never changed, by what loads it) without parsing it again: a
 * parse and a validation are a good part of a command's start-up (docs/performance.md, start-up).
 */
export function checkConfigText(text: string, file: string): ConfigTextCheck {
  if (lastCheck?.text !== text || lastCheck.file !== file) lastCheck = { text, file, check: checkConfigTextOnce(text, file) };
  const { check } = lastCheck;
  return { ...check, problems: [...check.problems], warnings: [...check.warnings] };
}

function checkConfigTextOnce(text: string, file: string): ConfigTextCheck {
  const { data, doc, problems, warnings } = parseYamlWithSchema(text, file, configSchema, { acceptCamelCase: true });
  if (!data || !doc) return { problems, warnings, doc };
  const extra: YamlProblem[] = [];
  const checkSchedule = (path: (string | number)[], cron: string, timezone: string) => {
    if (!isTimeZone(timezone)) {
      extra.push({ file, ...doc.positionOf([...path, 'timezone']), message: `${path.join('.')}.timezone: unknown time zone "${timezone}"` });
      return;
    }
    try {
      new Cron(cron, { timezone, paused: true }).stop();
    } catch (error) {
      extra.push({ file, ...doc.positionOf([...path, 'cron']), message: `${path.join('.')}.cron: ${(error as Error).message}` });
    }
  };
  data.inbound.forEach((job, i) => {
    if (job.schedule) checkSchedule(['inbound', i, 'schedule'], job.schedule.cron, job.schedule.timezone);
    job.expect.forEach((e, j) => {
      checkSchedule(['inbound', i, 'expect', j, 'cutoff'], e.cutoff.cron, e.cutoff.timezone);
      checkRegex(['inbound', i, 'expect', j, 'pattern'], e.pattern);
    });
  });
  data.exports.forEach((job, i) => {
    if (job.schedule) checkSchedule(['exports', i, 'schedule'], job.schedule.cron, job.schedule.timezone);
  });
  Object.entries(data.drops).forEach(([name, drop]) => {
    if (drop.pattern !== undefined) checkRegex(['drops', name, 'pattern'], drop.pattern);
  });
  function checkRegex(path: (string | number)[], pattern: string) {
    try {
      new RegExp(pattern, 'i');
    } catch (error) {
      extra.push({ file, ...doc!.positionOf(path), message: `${path.join('.')}: not a valid regular expression (${(error as Error).message})` });
    }
  }
  return extra.length > 0 ? { problems: extra, warnings, doc } : { config: data, problems: [], warnings, doc };
}

