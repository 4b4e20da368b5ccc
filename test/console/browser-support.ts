import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, beforeAll } from 'vitest';
import { ROOT } from '../pipeline/helpers.js';
import { CHROMIUM_PATH } from '../support/chromium.js';
import { useEmulator } from '../support/emulator.js';
import { useCleanups } from '../service/support.js';

/**
 * A browser test file's parts: Debian's chromium (one per file, driven by puppeteer-core), cleanups, and where
 * screenshots go — docs/ with WISBRIDGE_SCREENSHOTS=docs (how docs/console-*.png are made), else a temp folder.
 */
export function useBrowser() {
  const shots = process.env.WISBRIDGE_SCREENSHOTS === 'docs' ? join(ROOT, 'docs') : join(tmpdir(), 'wisbridge-console-shots');
  const cleanups = useCleanups();
  let browser: Browser | undefined;
  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    // Root in a container has no user namespaces for chromium's sandbox.
    browser = await puppeteer.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'] });
  });
  afterAll(async () => {
    await browser?.close();
  });
  const newPage = (): Promise<Page> => {
    if (!browser) throw new Error('the browser is not started (call newPage inside a test)');
    return browser.newPage();
  };
  return { shots, cleanups, newPage };
}

/** useBrowser and the emulator, for the pages whose actions send requests. */
export function useConsoleBrowser() {
  const emu = useEmulator({ resetEachTest: true });
  beforeAll(() => {
    process.env.WISBRIDGE_TEST_TOKEN = emu.token;
  });
  return { emu, ...useBrowser() };
}
