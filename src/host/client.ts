// A connection to the shared host, starting the host when none answers, and the one server it
// runs for this connection: started with a command line, stopped when asked or when the
// connection closes. What the server says comes to `say`.
import { spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { HOST_SCRIPT, hostPaths, onMessages, type ClientMessage, type Dialect, type HostMessage } from './protocol.js';

const HOST_START_TIMEOUT_MS = 15_000;

function tryConnect(path: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** The host's socket, starting the host when none answers. */
async function connectHost(): Promise<Socket> {
  const paths = hostPaths();
  const deadline = Date.now() + HOST_START_TIMEOUT_MS;
  let spawned = false;
  for (;;) {
    try {
      return await tryConnect(paths.socket);
    } catch {
      if (!spawned) {
        spawned = true;
        const log = openSync(paths.log, 'a', 0o600);
        // Its own session, no pipe of ours: it outlives this process, and no one waits on its output.
        spawn(process.execPath, [HOST_SCRIPT], { detached: true, stdio: ['ignore', log, log] }).unref();
      }
      if (Date.now() > deadline) throw new Error(`the shared host did not start (its log: ${paths.log})`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}

/** The host refused the start (the message is the one line a command prints). */
export class HostStartError extends Error {}

export interface HostedServer {
  url: string;
  kubeconfigPath: string;
  /** The host's process id. */
  pid: number;
  /** Resolves once the host has stopped the server. */
  stop(): Promise<void>;
  /** Resolves if the host goes away without being asked to stop (it crashed). */
  readonly lost: Promise<void>;
}

/** Starts a server in the host; resolves once it serves. */
export async function startHosted(dialect: Dialect, argv: string[], say: (line: string, warning: boolean) => void, started = Date.now()): Promise<HostedServer> {
  const socket = await connectHost();
  const send = (message: ClientMessage) => {
    if (!socket.destroyed) socket.write(`${JSON.stringify(message)}\n`);
  };
  let onReady!: (ready: { url: string; kubeconfig: string; pid: number }) => void;
  let onError!: (err: Error) => void;
  let onStopped!: () => void;
  let onLost!: () => void;
  const ready = new Promise<{ url: string; kubeconfig: string; pid: number }>((resolve, reject) => {
    onReady = resolve;
    onError = reject;
  });
  const stopped = new Promise<void>((resolve) => (onStopped = resolve));
  const lost = new Promise<void>((resolve) => (onLost = resolve));
  let ended = false;
  onMessages<HostMessage>(socket, (message) => {
    if ('say' in message) say(message.say, message.warning);
    else if ('ready' in message) onReady(message.ready);
    else if ('error' in message) {
      ended = true;
      onError(new HostStartError(message.error));
    } else if ('stopped' in message) {
      ended = true;
      onStopped();
    }
  });
  socket.on('error', () => undefined);
  socket.on('close', () => {
    onError(new Error('the shared host went away'));
    onStopped();
    if (!ended) onLost();
  });
  send({ start: { dialect, argv, cwd: process.cwd(), started } });
  const { url, kubeconfig, pid } = await ready;
  return {
    url,
    kubeconfigPath: kubeconfig,
    pid,
    lost,
    stop: async () => {
      ended = true;
      send({ stop: true });
      await stopped;
      socket.destroy();
    },
  };
}
