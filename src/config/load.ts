import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { Cron } from 'croner';
import { WisbridgeError } from '../errors.js';
import { resolveSecret } from '../client/secret.js';
import type { DropOptions } from '../drops/options.js';
import { formatYamlProblem, parseYamlWithSchema, type PositionedYaml, type YamlProblem } from '../util/yaml-document.js';
import { configSchema, type Config, type DropConfig, type SecretRef, type ServiceConfig } from './schema.js';

/** A validated configuration, with paths resolved against the config file's folder and secrets resolvable on demand. */
export interface LoadedConfig {
  file: string;
  config: Config;
  journalPath: string;
  mappingsDir: string;
  /** Drop options ready for `createDrop`, secrets read from their environment variables or files. */
  dropOptions(name: string): Promise<DropOptions>;
  service(name: string): ServiceConfig;
  serviceToken(name: string): Promise<string>;
  /** Any other secret reference of the configuration (e.g. webhook headers), read on demand; `what` names it in errors. */
  secret(ref: SecretRef, what: string): Promise<string>;
}

/** Validates a configuration text; returns every problem with its position (nothing thrown). */
export function checkConfigText(text: string, file: string): { config?: Config; problems: YamlProblem[]; doc?: PositionedYaml } {
  const { data, doc, problems } = parseYamlWithSchema(text, file, configSchema);
  if (!data || !doc) return { problems };
  const extra: YamlProblem[] = [];
  const checkSchedule = (path: (string | number)[], cron: string, timezone: string) => {
    try {
      new Intl.DateTimeFormat('en', { timeZone: timezone });
    } catch {
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
  return extra.length > 0 ? { problems: extra } : { config: data, problems: [], doc };
}

export async function loadConfig(file: string): Promise<LoadedConfig> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new WisbridgeError('CONFIG_INVALID', `cannot read the configuration file ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const { config, problems } = checkConfigText(text, file);
  if (!config) {
    throw new WisbridgeError('CONFIG_INVALID', problems.map(formatYamlProblem).join('\n'), { details: { problems } });
  }
  return bindConfig(config, file);
}

/** Binds a validated configuration to the folder its relative paths are read from. */
export function bindConfig(config: Config, file: string): LoadedConfig {
  const baseDir = dirname(resolve(file));
  const path = (p: string) => (isAbsolute(p) ? p : resolve(baseDir, p));
  const secret = (ref: SecretRef | undefined, what: string) =>
    ref === undefined ? Promise.resolve(undefined) : resolveSecret(secretSource(ref, path), what);
  const service = (name: string) => {
    const found = config.services[name];
    if (!found) throw new WisbridgeError('CONFIG_INVALID', `unknown service "${name}" (known: ${Object.keys(config.services).join(', ')})`);
    return found;
  };
  return {
    file,
    config,
    journalPath: path(config.journal),
    mappingsDir: path(config.mappings),
    service,
    serviceToken: (name) => resolveSecret(secretSource(service(name).token, path), `token of service "${name}"`),
    secret: (ref, what) => resolveSecret(secretSource(ref, path), what),
    async dropOptions(name) {
      const drop: DropConfig | undefined = config.drops[name];
      if (!drop) throw new WisbridgeError('CONFIG_INVALID', `unknown drop "${name}" (known: ${Object.keys(config.drops).join(', ')})`);
      if (drop.type === 'local') return { ...drop, name: drop.name ?? name, root: path(drop.root) };
      const { password, privateKey, passphrase, ...rest } = drop;
      return {
        ...rest,
        name: drop.name ?? name,
        privateKeyPath: rest.privateKeyPath === undefined ? undefined : path(rest.privateKeyPath),
        password: await secret(password, `password of drop "${name}"`),
        privateKey: await secret(privateKey, `private key of drop "${name}"`),
        passphrase: await secret(passphrase, `passphrase of drop "${name}"`),
      };
    },
  };
}

function secretSource(ref: SecretRef, path: (p: string) => string) {
  return 'env' in ref ? { env: ref.env } : { file: path(ref.file) };
}
