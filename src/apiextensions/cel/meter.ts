// The runtime cost of CEL evaluation. cel-js has no cost tracking of its own, so every node it
// evaluates (it evaluates children through its evaluator's `run`, which is replaced per
// environment, see instrument) costs 1, and the Kubernetes library functions add costs that
// grow with the size of their input, as cel-go's do. Evaluation is synchronous, so the meter in
// force is a module variable set around each evaluation.

/** Thrown inside an evaluation once its meter runs past its limit. */
export class CostLimitExceeded extends Error {
  constructor() { super('operation cancelled: actual cost limit exceeded'); }
}

/** The cost of one evaluation, stopped at `limit`. */
export class Meter {
  cost = 0;
  exceeded = false;
  constructor(readonly limit: number) {}
  charge(n: number): void {
    this.cost += n;
    // Once over, every later step throws again: cel-js catches errors inside `||`, `&&` and the
    // quantifier macros, and the evaluation must still end at once.
    if (this.exceeded || this.cost > this.limit) {
      this.exceeded = true;
      throw new CostLimitExceeded();
    }
  }
}

let current: Meter | undefined;

/** Adds `n` to the cost of the evaluation in progress (no-op outside one). */
export function charge(n: number): void {
  current?.charge(n);
}

/** Runs `f` with `meter` counting its cost. */
export function metered<T>(meter: Meter, f: () => T): T {
  const prev = current;
  current = meter;
  try {
    return f();
  } finally {
    current = prev;
  }
}

interface EvaluatorLike {
  run(ast: { evaluate(ev: unknown, ast: unknown, ctx: unknown): unknown }, ctx: unknown): unknown;
}

/** Makes `evaluator` (an environment's own cel-js evaluator) charge 1 per node it evaluates. */
export function instrument(evaluator: EvaluatorLike): void {
  evaluator.run = function meteredRun(ast, ctx) {
    charge(1);
    return ast.evaluate(this, ast, ctx);
  };
}
