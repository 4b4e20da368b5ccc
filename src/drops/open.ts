import { silentLogger, type Logger } from '../log.js';
import { CompanionDrop } from './companions.js';
import type { Drop } from './drop.js';
import { LocalDrop } from './local.js';
import type { DropOptions } from './options.js';
import { SftpDrop } from './sftp.js';

/**
 * A drop of validated options (a checked configuration's, or parseDropOptions'). Apart from the options' schemas
 * (create.ts validates with them): the runtime opens the drops of a configuration found checked without loading them
 * (docs/performance.md, start-up).
 */
export function openDrop(options: DropOptions, logger: Logger = silentLogger): Drop {
  const drop = options.type === 'local' ? new LocalDrop(options, logger) : new SftpDrop(options, logger);
  const checksum = options.outboundChecksum === 'none' ? undefined : options.outboundChecksum;
  const outbox = { checksum, marker: options.doneMarker, gzip: options.outboundGzip, pgp: options.pgp };
  return checksum || options.doneMarker || options.outboundGzip || options.pgp?.encryptOutbound ? new CompanionDrop(drop, outbox) : drop;
}
