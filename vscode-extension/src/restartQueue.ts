/**
 * Restarts run one at a time. A request while a restart runs schedules exactly one more
 * restart after it (it will see the newest settings); further requests in the meantime join
 * that pending restart instead of queueing more. No `vscode` import.
 */
export class RestartQueue {
  private running: Promise<void> | undefined;
  private pending: Promise<void> | undefined;
  private runs = 0;

  constructor(private readonly restart: () => Promise<void>) {}

  /** Number of restarts actually started (for tests and the output channel). */
  get started(): number {
    return this.runs;
  }

  get busy(): boolean {
    return this.running !== undefined;
  }

  request(): Promise<void> {
    if (!this.running) {
      return this.start();
    }
    if (!this.pending) {
      const after = this.running.catch(() => undefined);
      this.pending = after.then(() => {
        this.pending = undefined;
        return this.start();
      });
    }
    return this.pending;
  }

  private start(): Promise<void> {
    this.runs += 1;
    const run = (async () => this.restart())();
    this.running = run;
    const clear = () => {
      if (this.running === run) {
        this.running = undefined;
      }
    };
    run.then(clear, clear);
    return run;
  }
}
