// etcd's compaction as kube-apiserver does it (--etcd-compaction-interval, default 5m): every
// interval, a transaction on the key `compact_rev_key` (outside any prefix: every server on the
// etcd shares it) records the current revision, and the revision recorded one interval before is
// compacted. The compare on the key's version makes one server per interval do it, however many
// run; the others see the version moved and follow it.
import { isCompactedError, type EtcdClient } from './client.js';

export const COMPACT_REV_KEY = Buffer.from('compact_rev_key');

export class EtcdCompactor {
  private readonly timer: NodeJS.Timeout;
  /** The key's version this server last saw (0: absent). */
  private version = 0;
  /** The revision recorded at the previous interval (0: none yet: nothing is compacted at start). */
  private previous = 0;
  private running = false;

  constructor(
    private readonly client: EtcdClient,
    intervalMs: number,
    private readonly onCompacted: (revision: number) => void = () => undefined,
  ) {
    this.timer = setInterval(() => void this.tick(), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** One interval's step (exposed for tests). */
  async tick(): Promise<void> {
    if (this.running || this.client.isClosed) return;
    this.running = true;
    try {
      const res = await this.client.txn({
        compare: [{ key: COMPACT_REV_KEY, target: 'VERSION', result: 'EQUAL', version: this.version }],
        success: [{ put: { key: COMPACT_REV_KEY, value: Buffer.from(String(this.previous)) } }],
        failure: [{ range: { key: COMPACT_REV_KEY } }],
      });
      if (!res.succeeded) {
        // Another server did this interval's step.
        const read = res.results[0];
        const kv = read && 'range' in read ? read.range.kvs[0] : undefined;
        this.version = kv?.version ?? 0;
        this.previous = res.revision;
        return;
      }
      this.version++;
      const target = this.previous;
      this.previous = res.revision;
      if (target === 0) return;
      try {
        await this.client.compact(target);
        this.onCompacted(target);
      } catch (err) {
        if (!isCompactedError(err)) throw err;
      }
    } catch (err) {
      process.emitWarning(`etcd compaction: ${err instanceof Error ? err.message : String(err)}`, 'StorageWarning');
    } finally {
      this.running = false;
    }
  }
}
