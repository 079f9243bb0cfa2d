// The Pod row: READY, STATUS (the aggregate reason kubectl shows), RESTARTS (with the age of the
// last restart), IP, NODE, NOMINATED NODE, READINESS GATES.
import { arr, get, num, parseTime, rec, since, str, type Obj } from './format.js';

export interface RowCondition {
  type: string;
  status: string;
  reason: string;
  message: string;
}

/** The aggregate status text of a pod (`Pending`, `ContainerCreating`, `Init:0/2`, `CrashLoopBackOff`, `Completed`, `Terminating`, …). */
export function podStatusReason(pod: Obj): string {
  return podSummary(pod, Date.now()).reason;
}

interface PodSummary {
  ready: number;
  total: number;
  reason: string;
  restarts: string;
}

export function podSummary(pod: Obj, now: number): PodSummary {
  const spec = rec(pod.spec);
  const status = rec(pod.status);
  const total = arr(spec.containers).length;
  let ready = 0;
  let restarts = 0;
  let lastRestart: number | undefined;
  let reason = str(status.phase);
  if (str(status.reason) !== '') reason = str(status.reason);

  const noteTermination = (cs: unknown): void => {
    const terminated = get(cs, 'lastState', 'terminated');
    if (terminated && typeof terminated === 'object') {
      const finished = parseTime(get(terminated, 'finishedAt'));
      // An unset finishedAt is Go's zero time, never after another date.
      if (finished !== undefined && (lastRestart === undefined || lastRestart < finished)) lastRestart = finished;
    }
  };

  let initializing = false;
  const initStatuses = arr(status.initContainerStatuses);
  const initCount = arr(spec.initContainers).length;
  for (let i = 0; i < initStatuses.length; i++) {
    const cs = initStatuses[i];
    restarts += num(get(cs, 'restartCount'));
    noteTermination(cs);
    const terminated = get(cs, 'state', 'terminated');
    const waiting = get(cs, 'state', 'waiting');
    if (terminated && typeof terminated === 'object' && num(get(terminated, 'exitCode')) === 0) continue;
    if (terminated && typeof terminated === 'object') {
      const r = str(get(terminated, 'reason'));
      if (r === '') {
        const signal = num(get(terminated, 'signal'));
        reason = signal !== 0 ? `Init:Signal:${signal}` : `Init:ExitCode:${num(get(terminated, 'exitCode'))}`;
      } else {
        reason = `Init:${r}`;
      }
    } else if (waiting && typeof waiting === 'object' && str(get(waiting, 'reason')) !== '' && str(get(waiting, 'reason')) !== 'PodInitializing') {
      reason = `Init:${str(get(waiting, 'reason'))}`;
    } else {
      reason = `Init:${i}/${initCount}`;
    }
    initializing = true;
    break;
  }

  if (!initializing) {
    restarts = 0;
    let hasRunning = false;
    const statuses = arr(status.containerStatuses);
    for (let i = statuses.length - 1; i >= 0; i--) {
      const cs = statuses[i];
      restarts += num(get(cs, 'restartCount'));
      noteTermination(cs);
      const waiting = get(cs, 'state', 'waiting');
      const terminated = get(cs, 'state', 'terminated');
      const running = get(cs, 'state', 'running');
      if (waiting && typeof waiting === 'object' && str(get(waiting, 'reason')) !== '') {
        reason = str(get(waiting, 'reason'));
      } else if (terminated && typeof terminated === 'object' && str(get(terminated, 'reason')) !== '') {
        reason = str(get(terminated, 'reason'));
      } else if (terminated && typeof terminated === 'object') {
        const signal = num(get(terminated, 'signal'));
        reason = signal !== 0 ? `Signal:${signal}` : `ExitCode:${num(get(terminated, 'exitCode'))}`;
      } else if (get(cs, 'ready') === true && running && typeof running === 'object') {
        hasRunning = true;
        ready++;
      }
    }
    // Back to Running when a container still runs after another completed.
    if (reason === 'Completed' && hasRunning) {
      const podReady = arr(status.conditions).some((c) => get(c, 'type') === 'Ready' && get(c, 'status') === 'True');
      reason = podReady ? 'Running' : 'NotReady';
    }
  }

  const deleting = get(pod, 'metadata', 'deletionTimestamp');
  if (deleting !== undefined && deleting !== null && str(status.reason) === 'NodeLost') reason = 'Unknown';
  else if (deleting !== undefined && deleting !== null) reason = 'Terminating';

  let restartText = String(restarts);
  if (lastRestart !== undefined) restartText = `${restarts} (${since(new Date(lastRestart).toISOString(), now)} ago)`;
  return { ready, total, reason, restarts: restartText };
}

export function podCells(pod: Obj, now: number): unknown[] {
  const { ready, total, reason, restarts } = podSummary(pod, now);
  const spec = rec(pod.spec);
  const status = rec(pod.status);
  const podIPs = arr(status.podIPs);
  let ip = podIPs.length > 0 ? str(get(podIPs[0], 'ip')) : '';
  if (ip === '' && podIPs.length === 0) ip = str(status.podIP);
  const gates = arr(spec.readinessGates);
  let readinessGates = '<none>';
  if (gates.length > 0) {
    const conditions = arr(status.conditions);
    let trueCount = 0;
    for (const g of gates) {
      const type = get(g, 'conditionType');
      if (conditions.some((c) => get(c, 'type') === type && get(c, 'status') === 'True')) trueCount++;
    }
    readinessGates = `${trueCount}/${gates.length}`;
  }
  return [
    str(get(pod, 'metadata', 'name')),
    `${ready}/${total}`,
    reason,
    restarts,
    since(get(pod, 'metadata', 'creationTimestamp'), now),
    ip || '<none>',
    str(spec.nodeName) || '<none>',
    str(status.nominatedNodeName) || '<none>',
    readinessGates,
  ];
}

/** The row conditions the reference puts on a pod's row: Completed for a finished pod. */
export function podRowConditions(pod: Obj): RowCondition[] | undefined {
  switch (get(pod, 'status', 'phase')) {
    case 'Succeeded':
      return [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }];
    case 'Failed':
      return [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }];
    default:
      return undefined;
  }
}
