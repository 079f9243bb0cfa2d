// What one write took from the service pools and what it gives back, settled once: kept when the
// write is stored (and what it gave up is released then), given back when it is not. Taking comes
// first and releasing last, so that a failed write never frees what the stored object still holds
// (it is better to leak an address until restart than to hand it out twice).
import type { Claim } from '../strategies.js';

export class AllocationClaim implements Claim {
  private settled = false;
  private readonly undo: Array<() => void> = [];
  private readonly onCommit: Array<() => void> = [];
  private readonly onSettled: Array<() => void> = [];

  /** A dry-run claim takes nothing that stays, and releases nothing. */
  constructor(readonly dryRun: boolean) {}

  /** Something taken now, given back unless the write is stored. */
  taken(giveBack: () => void): void {
    if (!this.dryRun) this.undo.push(giveBack);
  }

  /** Something to give back once the write is stored. */
  releaseOnCommit(release: () => void): void {
    if (!this.dryRun) this.onCommit.push(release);
  }

  /** Something to do once the claim is settled either way (after its releases or give-backs). */
  afterSettle(then: () => void): void {
    if (!this.dryRun) this.onSettled.push(then);
  }

  commit(): void {
    if (this.settled) return;
    this.settled = true;
    for (const release of this.onCommit) release();
    for (const then of this.onSettled) then();
  }

  revert(): void {
    if (this.settled) return;
    this.settled = true;
    for (const giveBack of this.undo.reverse()) giveBack();
    for (const then of this.onSettled) then();
  }
}
