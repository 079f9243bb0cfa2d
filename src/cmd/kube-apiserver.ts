#!/usr/bin/env node
// `kube-apiserver` for test environments (controller-runtime's envtest, scripts written for the
// reference): capstan from the reference's command line (kube-apiserver-start.ts reads it). This
// process is the one its caller starts, watches and stops; by default the server itself runs in
// the shared host (host.ts) of this user's test servers, which starts it in tens of milliseconds;
// CAPSTAN_SHARED_HOST=0 runs it in this process instead. --help and --version answer here at once.
import { spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { versionInfo } from '../server/version.js';
import { hostPaths, type HostMessage, type LauncherMessage } from './host-protocol.js';
import { kubeApiserverHelp } from './kube-apiserver-flags.js';

const HOST_START_TIMEOUT_MS = 15_000;

/** Whether a switch is given (as pflag reads it: --name, --name=true, -h). */
const given = (argv: string[], ...spellings: string[]) => argv.some((a) => spellings.includes(a) || spellings.some((s) => a.startsWith(`${s}=`) && a !== `${s}=false`));

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
        spawn(process.execPath, [fileURLToPath(new URL('./host.js', import.meta.url))], { detached: true, stdio: ['ignore', log, log] }).unref();
      }
      if (Date.now() > deadline) throw new Error(`the shared host did not start (its log: ${paths.log}; CAPSTAN_SHARED_HOST=0 runs the server in this process)`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}

async function viaHost(argv: string[], started: number): Promise<void> {
  const socket = await connectHost();
  const send = (message: LauncherMessage) => socket.write(`${JSON.stringify(message)}\n`);
  let finished = false;
  const stop = () => send({ stop: true });
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  let buffered = '';
  socket.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    let nl;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const message = JSON.parse(buffered.slice(0, nl)) as HostMessage;
      buffered = buffered.slice(nl + 1);
      if ('say' in message) (message.warning ? process.stderr : process.stdout).write(`${message.say}\n`);
      else if ('error' in message) {
        finished = true;
        process.stderr.write(`${message.error}\n`);
        process.exit(1);
      } else if ('stopped' in message) {
        finished = true;
        process.exit(0);
      }
    }
  });
  socket.on('close', () => {
    if (finished) return;
    process.stderr.write('kube-apiserver (capstan): the shared host went away\n');
    process.exit(1);
  });
  send({ start: { argv, cwd: process.cwd(), started } });
}

async function inThisProcess(argv: string[], started: number): Promise<void> {
  const { prepareKubeApiserver, COMMAND } = await import('./kube-apiserver-start.js');
  const { OptionsError } = await import('./options.js');
  const { serve } = await import('./serve.js');
  let prepared;
  try {
    prepared = await prepareKubeApiserver(argv, process.cwd());
  } catch (err) {
    if (err instanceof OptionsError) {
      process.stderr.write(`Error: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  for (const note of prepared.notes) process.stderr.write(`${COMMAND}: ${note}\n`);
  await serve(prepared.options, { command: COMMAND, started: performance.now() - (Date.now() - started), temporaryDataDir: prepared.temporaryDataDir });
}

async function main(): Promise<void> {
  const started = Date.now();
  const argv = process.argv.slice(2);
  if (given(argv, '--help', '-h')) {
    process.stdout.write(kubeApiserverHelp());
    return;
  }
  if (given(argv, '--version')) {
    process.stdout.write(`Kubernetes ${versionInfo().gitVersion}\n`);
    return;
  }
  await (process.env['CAPSTAN_SHARED_HOST'] === '0' ? inThisProcess(argv, started) : viaHost(argv, started));
}

main().catch((err: unknown) => {
  process.stderr.write(`kube-apiserver (capstan): ${(err instanceof Error ? err.message : String(err)).split('\n')[0]}\n`);
  process.exit(1);
});
