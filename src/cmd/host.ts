#!/usr/bin/env node
// The shared host of the kube-apiserver launchers of one user and one capstan build: one process
// that runs every test environment's server (each on its own port, with its own store), so that a
// start costs what a server costs (a few tens of milliseconds, about a megabyte) and not what a
// Node process that loads capstan costs (a second of CPU, a hundred megabytes). The launcher
// (kube-apiserver.ts) stays the process envtest started and stops: it relays its command line
// here, prints what the server says, and asks for the stop on SIGTERM. A launcher that goes away
// without asking stops its server all the same. The host leaves when it has served no one for a
// minute. Its own log: host.log beside its socket.
import { appendFileSync, chmodSync, existsSync, unlinkSync } from 'node:fs';
import { createServer, connect, type Socket } from 'node:net';
import { OptionsError } from './options.js';
import { COMMAND, prepareKubeApiserver } from './kube-apiserver-start.js';
import { hostPaths, type HostMessage, type LauncherMessage } from './host-protocol.js';
import { startServing, oneLine, type Serving } from './serve.js';

const IDLE_EXIT_MS = 60_000;
const paths = hostPaths();
const log = (line: string) => appendFileSync(paths.log, `${new Date().toISOString()} ${line}\n`, { mode: 0o600 });

let serving = 0;
let idleTimer: NodeJS.Timeout | undefined;
function busy(delta: number): void {
  serving += delta;
  clearTimeout(idleTimer);
  if (serving === 0) {
    idleTimer = setTimeout(() => {
      log('idle: leaving');
      server.close();
      process.exit(0);
    }, IDLE_EXIT_MS);
  }
}

function send(socket: Socket, message: HostMessage): void {
  if (!socket.destroyed) socket.write(`${JSON.stringify(message)}\n`);
}

/** One launcher: its start, then its stop (asked, or its connection gone). */
function serveLauncher(socket: Socket): void {
  let buffered = '';
  let running: Promise<Serving | undefined> | undefined;
  const stop = async (answer: boolean) => {
    const s = await running;
    running = Promise.resolve(undefined);
    if (s) {
      await s.stop().catch((err: unknown) => log(`stop failed: ${oneLine(err)}`));
      busy(-1);
    }
    if (answer) send(socket, { stopped: true });
    socket.end();
  };
  socket.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    let nl;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const message = JSON.parse(buffered.slice(0, nl)) as LauncherMessage;
      buffered = buffered.slice(nl + 1);
      if ('start' in message && !running) {
        running = start(socket, message.start.argv, message.start.cwd, message.start.started);
      } else if ('stop' in message) {
        void stop(true);
      }
    }
  });
  socket.on('close', () => void stop(false));
  socket.on('error', () => undefined);
}

async function start(socket: Socket, argv: string[], cwd: string, started: number): Promise<Serving | undefined> {
  const say = (line: string, warning = false) => send(socket, { say: line, warning });
  try {
    const prepared = await prepareKubeApiserver(argv, cwd);
    for (const note of prepared.notes) say(`${COMMAND}: ${note}`, true);
    // The launcher's clock: "ready in" counts from its start, as a process of its own would.
    const s = await startServing(prepared.options, { command: COMMAND, started: performance.now() - (Date.now() - started), temporaryDataDir: prepared.temporaryDataDir }, say);
    busy(1);
    send(socket, { ready: true });
    log(`serving ${s.url}`);
    return s;
  } catch (err) {
    send(socket, { error: err instanceof OptionsError ? `Error: ${err.message}` : `${COMMAND}: ${oneLine(err)}` });
    socket.end();
    return undefined;
  }
}

const server = createServer(serveLauncher);

/** Listens on the socket, unless a live host already does (then this one leaves). */
function listen(): void {
  server.once('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EADDRINUSE') throw err;
    const probe = connect(paths.socket);
    probe.once('connect', () => {
      probe.end();
      process.exit(0);
    });
    probe.once('error', () => {
      // A socket left by a host that died: replace it.
      if (existsSync(paths.socket)) unlinkSync(paths.socket);
      server.listen(paths.socket, () => chmodSync(paths.socket, 0o600));
    });
  });
  server.listen(paths.socket, () => chmodSync(paths.socket, 0o600));
}

process.on('uncaughtException', (err) => {
  log(`uncaught: ${err.stack ?? String(err)}`);
  process.exit(1);
});
log(`host ${process.pid} starting`);
listen();
busy(0);
