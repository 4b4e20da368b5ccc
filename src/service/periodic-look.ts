/**
 * A look at the journal every `everyMs` and on demand, never two at once (a look asked for while one runs joins it);
 * a look that fails is reported, and the next one tries again.
 */
export class PeriodicLook {
  #timer: NodeJS.Timeout | undefined;
  #looking: Promise<void> | undefined;

  constructor(private readonly once: () => Promise<void>, private readonly failed: (error: unknown) => void) {}

  look(): Promise<void> {
    this.#looking ??= this.once().catch(this.failed).finally(() => {
      this.#looking = undefined;
    });
    return this.#looking;
  }

  start(everyMs: number): void {
    this.#timer ??= setInterval(() => void this.look(), everyMs).unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#looking;
  }
}
