/**
 * The drop options that are secrets (camelCase names). This list alone decides that the configuration file takes them
 * by reference (`{ env }` / `{ file }`), that `wisbridge config show` never prints them and that logs redact them; the
 * options' schema flags them from it (options.ts, `secretOption`). Apart from the schemas: reading a configuration
 * found checked does not load them (docs/performance.md, start-up).
 */
export const SECRET_DROP_OPTIONS = ['password', 'privateKey', 'passphrase'] as const;
export type SecretDropOption = (typeof SECRET_DROP_OPTIONS)[number];
