/**
 * Child of work-folder.test.ts: expands SOURCE into TARGET — `pgp` decrypts it with the key in KEY_FILE (unprotected,
 * armored), `gzip` gunzips it — under the file size limit its shell set, and prints the error's code and message as
 * JSON (`{}` when it worked).
 */
import { readFileSync } from 'node:fs';
import * as openpgp from 'openpgp';
import { gunzipTo } from '../../src/drops/expand.js';
import { decryptTo } from '../../src/drops/pgp.js';

const [kind, source, target, keyFile] = process.argv.slice(2);
try {
  if (kind === 'pgp') {
    const decryption = await openpgp.readPrivateKey({ armoredKey: readFileSync(keyFile, 'utf8') });
    await decryptTo(source, target, 'inbox/BIG.csv.pgp', { decryption, requireSignature: false, encryptOutbound: false, signOutbound: false });
  } else {
    await gunzipTo(source, target, 'inbox/BIG.csv.gz', { maxBytes: 1 << 30, maxRatio: 1000, maxEntries: 1 });
  }
  console.log('{}');
} catch (error) {
  console.log(JSON.stringify({ code: (error as { code?: string }).code, message: (error as Error).message }));
}
