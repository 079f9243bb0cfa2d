// Command-line flags → one Options object. Names follow kube-apiserver's where it has one.
import { parseArgs } from 'node:util';

export interface Options {
  bindAddress: string;
  securePort: number;
  dataDir: string;
  storage: 'sqlite' | 'memory';
  help: boolean;
}

export const HELP = `capstan — the Kubernetes API server (kube-apiserver 1.25's REST interface) in TypeScript

Usage: capstan [flags]

Flags:
  --bind-address string   address to listen on (default "127.0.0.1")
  --secure-port int       port to listen on; 0 picks a free one (default 6443)
  --data-dir string       folder for the database file and the admin kubeconfig (default "./.capstan")
  --storage string        "sqlite" (a database file in --data-dir) or "memory" (default "sqlite")
  -h, --help              print this help
`;

export class OptionsError extends Error {}

export function parseOptions(argv: string[]): Options {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        'bind-address': { type: 'string', default: '127.0.0.1' },
        'secure-port': { type: 'string', default: '6443' },
        'data-dir': { type: 'string', default: './.capstan' },
        storage: { type: 'string', default: 'sqlite' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: false,
    });
  } catch (err) {
    throw new OptionsError((err as Error).message);
  }
  const v = parsed.values;
  const port = Number(v['secure-port']);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new OptionsError(`--secure-port: invalid port "${v['secure-port']}"`);
  const storage = v.storage;
  if (storage !== 'sqlite' && storage !== 'memory') throw new OptionsError(`--storage: must be "sqlite" or "memory", not "${storage}"`);
  return { bindAddress: v['bind-address']!, securePort: port, dataDir: v['data-dir']!, storage, help: v.help ?? false };
}
