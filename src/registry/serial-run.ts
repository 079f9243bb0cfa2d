// One run of a task at a time, for the clients of informers that reconcile everything at once
// (the `kubernetes` Service, local APIServices, APIService availability): a request while a run
// is under way brings exactly one more run after it; a failed run is logged, not thrown.
export class SerialRun {
  private running: Promise<void> | undefined;
  private again = false;
  private ended = false;

  /** `label` names the task in the log when a run fails. */
  constructor(private readonly task: () => Promise<void>, private readonly label: string) {}

  get stopped(): boolean {
    return this.ended;
  }

  request(): void {
    if (this.ended) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.task()
      .catch((err: unknown) => console.error(`${this.label}:`, err))
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.request();
        }
      });
  }

  /** The run under way (resolved when there is none). */
  current(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  /** No run starts from now on; resolves once the one under way is over. */
  async stop(): Promise<void> {
    this.ended = true;
    await this.running;
  }
}
