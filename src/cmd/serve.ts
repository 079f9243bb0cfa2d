// Starting a server from a command (capstan, and kube-apiserver for test environments): the private
// data folder and its lock, the server, the admin kubeconfig, and a clean stop on SIGINT/SIGTERM.
import { rmSync, writeFileSync } from 'node:fs';
import { adminKubeconfig } from '../server/kubeconfig.js';
import type { Options } from '../server/options.js';
import type { DataDirLock } from './data-dir-lock.js';
import { applyHeapPolicySoon } from './heap-policy.js';
import { makeDataDirPrivate, tightenedWarning } from './private-data-dir.js';

/** The first line of what went wrong, as the one line a failed start prints. */
export function oneLine(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.split('\n')[0]!.trim();
}

/** Why a folder cannot be made, in words. */
function folderFailure(dir: string, err: unknown): Error {
  const code = (err as { code?: string }).code;
  const why = code === 'EACCES' || code === 'EPERM' ? 'permission denied' : code === 'ENOTDIR' || code === 'EEXIST' ? 'not a folder' : oneLine(err);
  return new Error(`cannot use --data-dir ${dir}: ${why}`);
}

export interface ServeSettings {
  /** The command's name, at the start of the lines it prints. */
  command: string;
  /** When the command started (performance.now()), for the "ready in" figure. */
  started: number;
  /** Remove the data folder when the server stops (a temporary one the command made). */
  temporaryDataDir?: boolean;
}

export interface Serving {
  url: string;
  /** The admin kubeconfig written in the data folder. */
  kubeconfigPath: string;
  /** Stops the server (at once, or gracefully: see RunningServer.shutdown), releases the folder (removes it when temporary). */
  stop(graceful?: boolean): Promise<void>;
}

/** Starts the server on `options` (dataDir absolute); `say` gets the lines a command prints (stdout, or stderr for warnings). */
export async function startServing(options: Options, settings: ServeSettings, say: (line: string, warning?: boolean) => void): Promise<Serving> {
  const dataDir = options.dataDir;
  try {
    const tightened = makeDataDirPrivate(dataDir);
    if (tightened) say(`${settings.command}: ${tightenedWarning(dataDir, tightened)}`, true);
  } catch (err) {
    throw folderFailure(dataDir, err);
  }
  // Before anything is written: a second server on the folder stops here, having changed nothing.
  // (A folder the command just made is no one else's: it needs no lock, nor SQLite to take one.)
  let lock: DataDirLock = { release: () => undefined };
  if (!settings.temporaryDataDir) {
    const { DataDirInUseError, lockDataDir } = await import('./data-dir-lock.js');
    try {
      lock = lockDataDir(dataDir);
    } catch (err) {
      if (err instanceof DataDirInUseError) throw err;
      throw folderFailure(dataDir, err);
    }
  }
  const removeDataDir = () => {
    if (settings.temporaryDataDir) rmSync(dataDir, { recursive: true, force: true });
  };
  // As the reference's feature gate warns when a GA or deprecated gate is set.
  const { FeatureGates } = await import('../api/feature-gates.js');
  for (const warning of FeatureGates.parse(options.featureGates).warnings) say(warning, true);
  // The server is loaded only now, so that --help and --version answer at once.
  const { startServer } = await import('../server/server.js');
  let server;
  try {
    server = await startServer(options);
  } catch (err) {
    lock.release();
    removeDataDir();
    throw err;
  }
  const kubeconfigPath = `${dataDir}/kubeconfig`;
  const clientHost = options.bindAddress === '0.0.0.0' ? '127.0.0.1' : options.bindAddress;
  const scheme = server.material ? 'https' : 'http';
  writeFileSync(kubeconfigPath, adminKubeconfig(`${scheme}://${clientHost.includes(':') ? `[${clientHost}]` : clientHost}:${server.port}`, server.material), { mode: 0o600 });
  say(`${settings.command} serving on ${server.url} (storage: ${options.storage}${options.storage === 'sqlite' ? ` in ${dataDir}` : options.storage === 'etcd' ? ` at ${options.etcdServers.join(',')}` : ''}), ready in ${Math.round(performance.now() - settings.started)} ms`);
  say(`kubeconfig: ${kubeconfigPath}`);
  let stopped: Promise<void> | undefined;
  return {
    url: server.url,
    kubeconfigPath,
    stop: (graceful = false) => (stopped ??= (graceful ? server.shutdown() : server.close()).then(() => {
      lock.release();
      removeDataDir();
    })),
  };
}

/**
 * Starts the server on `options` (dataDir absolute); SIGINT or SIGTERM stops it gracefully (requests
 * in flight finish, watches end), a second signal at once, as the reference.
 */
export async function serve(options: Options, settings: ServeSettings): Promise<void> {
  // Listening for signals from the start: one that comes while the server starts stops it once started.
  let serving: Serving | undefined;
  let signalled = false;
  const stop = () => {
    if (signalled) process.exit(1);
    signalled = true;
    serving?.stop(true).then(() => process.exit(0), () => process.exit(1));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  serving = await startServing(options, settings, (line, warning) => (warning ? process.stderr : process.stdout).write(`${line}\n`));
  applyHeapPolicySoon();
  if (signalled) serving.stop(true).then(() => process.exit(0), () => process.exit(1));
}
