/** Helper of bench/client.ts: runs the emulator (large seed) in its own process so it does not share the client's event loop. */
import { startEmulator } from '../src/emulator/index.js';

const emulator = await startEmulator({ port: 0, seed: 1, scale: 'large', today: '2026-11-22' });
process.stdout.write(`${JSON.stringify({ url: emulator.url, token: emulator.mintToken([1]) })}\n`);
process.on('SIGTERM', () => {
  void emulator.close().then(() => process.exit(0));
});
