// Command-line flags → one Options object. Names follow kube-apiserver's where it has one.
import { parseArgs } from 'node:util';

export interface Options {
  bindAddress: string;
  securePort: number;
  dataDir: string;
  storage: 'sqlite' | 'memory';
  /** Milliseconds of change history kept for watches and continue tokens. */
  watchHistoryWindowMs: number;
  help: boolean;
}

/** Go-style durations as kube-apiserver flags take them: "5m", "90s", "1h30m", "250ms". */
export function parseDuration(text: string): number | undefined {
  const units: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };
  const re = /(\d+(?:\.\d+)?)(ms|h|m|s)/y;
  let total = 0;
  let at = 0;
  if (!text) return undefined;
  while (at < text.length) {
    re.lastIndex = at;
    const m = re.exec(text);
    if (!m) return undefined;
    total += Number(m[1]) * units[m[2]!]!;
    at = re.lastIndex;
  }
  return total;
}

export const HELP = `capstan — the Kubernetes API server (kube-apiserver 1.25's REST interface) in TypeScript

Usage: capstan [flags]

Flags:
  --bind-address string   address to listen on (default "127.0.0.1")
  --secure-port int       port to listen on; 0 picks a free one (default 6443)
  --data-dir string       folder for the database file and the admin kubeconfig (default "./.capstan")
  --storage string        "sqlite" (a database file in --data-dir) or "memory" (default "sqlite")
  --watch-history-window duration
                          how long changes stay available to watches, exact lists and continue
                          tokens; older versions answer 410 Gone (default 5m0s)
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
        'watch-history-window': { type: 'string', default: '5m' },
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
  const window = parseDuration(v['watch-history-window']!);
  if (window === undefined || window <= 0) throw new OptionsError(`--watch-history-window: invalid duration "${v['watch-history-window']}"`);
  return { bindAddress: v['bind-address']!, securePort: port, dataDir: v['data-dir']!, storage, watchHistoryWindowMs: window, help: v.help ?? false };
}
