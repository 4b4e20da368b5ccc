import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { Cron } from 'croner';
import { WisbridgeError } from '../errors.js';
import { readSecret } from '../secret.js';
import { SECRET_DROP_OPTIONS, type DropOptions } from '../drops/options.js';
import { camelToSnake } from '../util/naming.js';
import { isTimeZone } from '../util/time-zone.js';
import { formatYamlProblem, parseYamlWithSchema, type PositionedYaml, type YamlProblem } from '../util/yaml-document.js';
import { workingFolderOf, type JournalTarget } from '../journal/index.js';
import { configSchema, type Config, type DropConfig, type SecretRef, type ServiceConfig } from './schema.js';

/** A validated configuration, with paths resolved against the config file's folder and secrets read on demand. */
export interface LoadedConfig {
  file: string;
  config: Config;
  /** Old spellings accepted (camelCase keys): one warning each, naming the new key; logged once by the runtime. */
  warnings: YamlProblem[];
  /** Where the journal lives: the SQLite file's resolved path, or the PostgreSQL connection (files relative to `file`). */
  journal: JournalTarget;
  /** The SQLite journal's file; undefined on PostgreSQL. */
  journalFile: string | undefined;
  /**
   * Where the bridge keeps its private copies of files being processed (the checksum claimed is the copy's): beside a
   * SQLite journal, else `wisbridge-snapshots` beside the configuration file. Local to the machine.
   */
  snapshotDir: string;
  mappingsDir: string;
  /** Drop options ready for `createDrop`, secrets read from their environment variables or files. */
  dropOptions(name: string): Promise<DropOptions>;
  service(name: string): ServiceConfig;
  serviceToken(name: string): Promise<string>;
  /** Any other secret reference of the configuration (e.g. webhook headers), read on demand; `what` names it in errors. */
  secret(ref: SecretRef, what: string): Promise<string>;
}

type ConfigCheck = { config?: Config; problems: YamlProblem[]; warnings: YamlProblem[]; doc?: PositionedYaml };

/** The last text checked and what it gave: `run` and `batch` read the file once to load it and once to check it ready. */
let lastCheck: { text: string; file: string; check: ConfigCheck } | undefined;

/**
 * Validates a configuration text; returns every problem with its position (nothing thrown). The same text and name
 * checked again give the same configuration (read, never changed, by what loads it) without parsing it again: a
 * parse and a validation are a good part of a command's start-up (docs/performance.md, start-up).
 */
export function checkConfigText(text: string, file: string): ConfigCheck {
  if (lastCheck?.text !== text || lastCheck.file !== file) lastCheck = { text, file, check: checkConfigTextOnce(text, file) };
  const { check } = lastCheck;
  return { ...check, problems: [...check.problems], warnings: [...check.warnings] };
}

function checkConfigTextOnce(text: string, file: string): ConfigCheck {
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

/** The text of a configuration file; a missing one is named by its full path, with the way to give another. */
export async function readConfigText(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    const hint = code === 'ENOENT' ? 'no such file; give the configuration with --config FILE (start from examples/wisbridge.yaml)' : code;
    throw new WisbridgeError('CONFIG_INVALID', `cannot read the configuration file ${resolve(file)} (${hint})`);
  }
}

export async function loadConfig(file: string, env: NodeJS.ProcessEnv = process.env): Promise<LoadedConfig> {
  const text = await readConfigText(file);
  const { config, problems, warnings } = checkConfigText(text, file);
  if (!config) {
    throw new WisbridgeError('CONFIG_INVALID', problems.map(formatYamlProblem).join('\n'), { details: { problems } });
  }
  return bindConfig(withEnvironment(config, env), file, warnings);
}

/** The environment variables that override the file (docs/reference/configuration.md lists them). */
export const ENVIRONMENT_OVERRIDES = {
  WISBRIDGE_LOG_LEVEL: 'overrides `log.level`',
  WISBRIDGE_METRICS_PORT: 'overrides `metrics.port`; without `metrics:` in the file it turns /metrics and /healthz on at 127.0.0.1',
} as const;

const logLevel = configSchema.shape.log.unwrap().shape.level.unwrap();
const metricsSchema = configSchema.shape.metrics.unwrap();
const metricsPort = metricsSchema.shape.port.unwrap();

function withEnvironment(config: Config, env: NodeJS.ProcessEnv): Config {
  const result = { ...config };
  const level = env.WISBRIDGE_LOG_LEVEL;
  if (level !== undefined && level !== '') {
    const parsed = logLevel.safeParse(level);
    if (!parsed.success) throw new WisbridgeError('CONFIG_INVALID', `WISBRIDGE_LOG_LEVEL: "${level}" is not one of ${logLevel.options.join(', ')}`);
    result.log = { level: parsed.data };
  }
  const port = env.WISBRIDGE_METRICS_PORT;
  if (port !== undefined && port !== '') {
    const parsed = metricsPort.safeParse(/^\d+$/.test(port) ? Number(port) : port);
    if (!parsed.success) throw new WisbridgeError('CONFIG_INVALID', `WISBRIDGE_METRICS_PORT: "${port}" is not a port number (0-65535)`);
    // The rest of the section (host, credentials) is kept: only the port is overridden.
    result.metrics = { ...(config.metrics ?? metricsSchema.parse({})), port: parsed.data };
  }
  return result;
}

/** A path the configuration names, as the bridge reads it: relative to the configuration file's folder. */
export function configPath(file: string, p: string): string {
  return isAbsolute(p) ? p : resolve(dirname(resolve(file)), p);
}

/** Binds a validated configuration to the folder its relative paths are read from. */
export function bindConfig(config: Config, file: string, warnings: YamlProblem[] = []): LoadedConfig {
  const path = (p: string) => configPath(file, p);
  const secret = (ref: SecretRef | undefined, what: string) =>
    ref === undefined ? Promise.resolve(undefined) : readSecret(secretSource(ref, path), what);
  const service = (name: string) => {
    const found = config.services[name];
    if (!found) throw new WisbridgeError('CONFIG_INVALID', `unknown service "${name}" (known: ${Object.keys(config.services).join(', ')})`);
    return found;
  };
  return {
    file,
    config,
    warnings,
    journal: typeof config.journal === 'string' ? path(config.journal) : { ...config.journal, baseDir: dirname(file) },
    journalFile: typeof config.journal === 'string' ? path(config.journal) : undefined,
    snapshotDir: typeof config.journal === 'string' ? workingFolderOf(path(config.journal)) : path('wisbridge-snapshots'),
    mappingsDir: path(config.mappings),
    service,
    serviceToken: (name) => readSecret(secretSource(service(name).token, path), `token of service "${name}"`),
    secret: (ref, what) => readSecret(secretSource(ref, path), what),
    async dropOptions(name) {
      const drop: DropConfig | undefined = config.drops[name];
      if (!drop) throw new WisbridgeError('CONFIG_INVALID', `unknown drop "${name}" (known: ${Object.keys(config.drops).join(', ')})`);
      const pgp = drop.pgp && {
        privateKey: await secret(drop.pgp.private_key, `pgp private key of drop "${name}"`),
        passphrase: await secret(drop.pgp.passphrase, `pgp passphrase of drop "${name}"`),
        partnerKey: await secret(drop.pgp.partner_key, `pgp partner key of drop "${name}"`),
        requireSignature: drop.pgp.require_signature, encryptOutbound: drop.pgp.encrypt_outbound, signOutbound: drop.pgp.sign_outbound,
      };
      if (drop.type === 'local') return { ...drop, pgp, name: drop.name ?? name, root: path(drop.root) };
      const options: Record<string, unknown> = {
        ...drop,
        pgp,
        name: drop.name ?? name,
        privateKeyPath: drop.privateKeyPath === undefined ? undefined : path(drop.privateKeyPath),
      };
      for (const key of SECRET_DROP_OPTIONS) {
        options[key] = await secret(options[key] as SecretRef | undefined, `${camelToSnake(key).replace(/_/g, ' ')} of drop "${name}"`);
      }
      return options as DropOptions;
    },
  };
}

function secretSource(ref: SecretRef, path: (p: string) => string) {
  return 'env' in ref ? { env: ref.env } : { file: path(ref.file) };
}
