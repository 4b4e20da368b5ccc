// The load hook of loaded-modules.mjs: appends each module's URL as it loads (synchronously, so a process that
// exits at once loses none).
import { appendFileSync } from 'node:fs';

let file;

export function initialize(data) {
  file = data.file;
}

export async function load(url, context, nextLoad) {
  appendFileSync(file, url + '\n');
  return nextLoad(url, context);
}
