import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { WisbridgeError } from '../errors.js';
import { readSecret } from '../secret.js';
import type { DropOptions } from '../drops/options.js';
import { SECRET_DROP_OPTIONS } from '../drops/secret-options.js';
import { camelToSnake } from '../util/naming.js';
import { CheckCache } from '../util/check-cache.js';
import { redactUrl } from '../util/redact-url.js';
import type { PositionedYaml } from '../util/yaml-document.js';
import { formatYamlProblem, type YamlProblem } from '../util/yaml-problem.js';
import { workingFolderOf, type JournalTarget } from '../journal/index.js';
import type { Config, DropConfig, SecretRef, ServiceConfig } from './schema.js';

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

/** What a check made of a configuration text; its YAML document, for the position of a later problem, on demand. */
export interface ConfigCheck {
  config?: Config;
  problems: YamlProblem[];
  warnings: YamlProblem[];
  document(): Promise<PositionedYaml | undefined>;
}

/**
 * Checks a configuration text (check-text.ts), or finds it in the cache of checked ones (src/util/check-cache.ts):
 * a text this build checked before is not parsed again, and a command that starts on it loads neither the YAML parser
 * nor the configuration's schemas (docs/performance.md, start-up). Only a text that passed is kept, and none with a
 * credential written inline.
 */
export async function checkConfig(text: string, file: string, cache = CheckCache.open<Config>('config', resolve(file))): Promise<ConfigCheck> {
  const checked = cache.get(file, text);
  if (checked) {
    return { config: checked.data, problems: [], warnings: checked.warnings, document: async () => (await import('../util/yaml-document.js')).parseYaml(text, file).doc };
  }
  const { checkConfigText } = await import('./check-text.js');
  const { doc, ...check } = checkConfigText(text, file);
  if (check.config && !inlineCredentials(check.config)) {
    cache.set(file, text, { data: check.config, warnings: check.warnings });
    cache.save([file]);
  }
  return { ...check, document: () => Promise.resolve(doc) };
}

/**
 * A URL written inline with a credential in it (a password, a query parameter: warned about by `config check`, not
 * refused). Such a configuration is checked at every start rather than cached: the cache holds no secret.
 */
function inlineCredentials(config: Config): boolean {
  const urls = [...Object.values(config.services).map((service) => service.url), config.alerts?.webhook?.url];
  return urls.some((url) => typeof url === 'string' && redactUrl(url) !== url);
}

export async function loadConfig(file: string, env: NodeJS.ProcessEnv = process.env): Promise<LoadedConfig> {
  const { config, problems, warnings } = await checkConfig(await readConfigText(file), file);
  if (!config) {
    throw new WisbridgeError('CONFIG_INVALID', problems.map(formatYamlProblem).join('\n'), { details: { problems } });
  }
  return bindConfig(await withEnvironment(config, env), file, warnings);
}

/** The environment variables that override the file (docs/reference/configuration.md lists them). */
export const ENVIRONMENT_OVERRIDES = {
  WISBRIDGE_LOG_LEVEL: 'overrides `log.level`',
  WISBRIDGE_METRICS_PORT: 'overrides `metrics.port`; without `metrics:` in the file it turns /metrics and /healthz on at 127.0.0.1',
} as const;

/** The configuration with the environment's overrides; the schemas that check them are loaded only for an override. */
async function withEnvironment(config: Config, env: NodeJS.ProcessEnv): Promise<Config> {
  const level = env.WISBRIDGE_LOG_LEVEL;
  const port = env.WISBRIDGE_METRICS_PORT;
  if (!level && !port) return config;
  const { configSchema } = await import('./schema.js');
  const logLevel = configSchema.shape.log.unwrap().shape.level.unwrap();
  const metricsSchema = configSchema.shape.metrics.unwrap();
  const metricsPort = metricsSchema.shape.port.unwrap();
  const result = { ...config };
  if (level !== undefined && level !== '') {
    const parsed = logLevel.safeParse(level);
    if (!parsed.success) throw new WisbridgeError('CONFIG_INVALID', `WISBRIDGE_LOG_LEVEL: "${level}" is not one of ${logLevel.options.join(', ')}`);
    result.log = { level: parsed.data };
  }
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
