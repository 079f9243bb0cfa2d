// Command-line flags → the server's Options. The flags, their defaults and their help come from
// the one table of settings (server/options.ts); here they are read, checked together, and listed.
import { parseArgs } from 'node:util';
import { ServiceAllocators } from '../registry/allocators/service-allocation.js';
import { flags, formatDuration, OptionsError, withDefaults, type Options } from '../server/options.js';
import { versionInfo } from '../server/version.js';

export { OptionsError, parseDuration } from '../server/options.js';

export interface CommandLine {
  options: Options;
  /** The reference's flags (a dialect's) that were given and that capstan accepts with no effect, in order. */
  unimplemented: string[];
  /** The names of capstan's flags that were given. */
  given: Set<string>;
  /** The flags the dialect's caller reads itself, with their values (repeats joined by commas). */
  handled: Map<string, string>;
  /** -h or --help: print the help and do nothing else. */
  help: boolean;
  /** --version: print the version and do nothing else. */
  version: boolean;
}

/** Column where --help's descriptions start, and the width they are wrapped to. */
const HELP_COLUMN = 26;
const HELP_WIDTH = 100;

/** Words (kept whole) filled into lines of at most `width`. */
function wrap(words: string[], width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) lines.push(line);
  return lines;
}

function shownDefault(flag: { takes?: string; shownDefault?: string }, value: unknown): string | undefined {
  if (flag.shownDefault !== undefined) return flag.shownDefault;
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') return flag.takes === 'duration' ? formatDuration(value) : String(value);
  if (value === true) return 'true';
  return undefined;
}

function helpText(): string {
  const entries = flags().map(({ flag, default: value }) => {
    const takes = flag.takes && flag.takes !== 'bool' ? ` ${flag.takes}` : '';
    const shown = shownDefault(flag, value);
    const names = flag.short ? `-${flag.short}, --${flag.name}` : `--${flag.name}`;
    // The default stays on one line; a line break in the help (--feature-gates' list) is kept.
    const paragraphs = flag.help.split('\n').map((line) => line.split(' '));
    if (shown !== undefined) paragraphs[paragraphs.length - 1]!.push(`(default ${shown})`);
    return { left: `  ${names}${takes}`, paragraphs };
  });
  entries.push({ left: '  -h, --help', paragraphs: [['print', 'this', 'help']] });
  entries.push({ left: '  --version', paragraphs: [['print', 'the', 'version', 'and', 'quit']] });
  const indent = ' '.repeat(HELP_COLUMN);
  const lines = entries.flatMap(({ left, paragraphs }) => {
    const [first, ...rest] = paragraphs.flatMap((words) => wrap(words, HELP_WIDTH - HELP_COLUMN));
    const head = left.length < HELP_COLUMN ? [left.padEnd(HELP_COLUMN) + first] : [left, indent + first];
    return [...head, ...rest.map((l) => indent + l)];
  });
  return `capstan — the Kubernetes API server (kube-apiserver 1.25's REST interface) in TypeScript

Usage: capstan [flags]
       capstan envtest-assets DIR
           write kube-apiserver and etcd launchers for envtest (KUBEBUILDER_ASSETS=DIR)
       capstan convert -f FILE [--output-version group/version] [-o yaml|json]
           convert manifests to other versions (removed ones to their replacements)

Flags:
${lines.join('\n')}
`;
}

export const HELP = helpText();

/** What --version prints: the reference's line ("Kubernetes v1.25.0"), with capstan's version in it. */
export const VERSION_LINE = `Kubernetes ${versionInfo().gitVersion}`;

/** What no single flag can say: the flags that go together or exclude each other. */
function checkTogether(o: Options): void {
  if (o.insecure && o.bindAddress !== '127.0.0.1' && o.bindAddress !== '::1' && o.bindAddress !== 'localhost') {
    throw new OptionsError('--insecure-serving: only on a loopback --bind-address');
  }
  if (Boolean(o.tlsCertFile) !== Boolean(o.tlsPrivateKeyFile)) throw new OptionsError('--tls-cert-file and --tls-private-key-file go together');
  if (o.storage === 'etcd' && o.etcdServers.length === 0) throw new OptionsError('--storage etcd: --etcd-servers must name at least one etcd');
  if (Boolean(o.etcdCertfile) !== Boolean(o.etcdKeyfile)) throw new OptionsError('--etcd-certfile and --etcd-keyfile go together');
  try {
    ServiceAllocators.fromFlags(o.serviceClusterIpRange, o.serviceNodePortRange);
  } catch (err) {
    throw new OptionsError((err as Error).message);
  }
}

/** The command's own switches, beside the settings' flags. */
const SWITCHES = [{ name: 'help', short: 'h' }, { name: 'version' }];

/** Another program's command line read by the same parser (kube-apiserver's, for test environments). */
export interface Dialect {
  /** Every flag the program accepts: 'bool' may stand alone, 'value' takes one. */
  flags: ReadonlyMap<string, 'bool' | 'value'>;
  /** Its flags that capstan does not have but the caller interprets. */
  handled: readonly string[];
}

/**
 * Reads argv as pflag does: `--flag value`, `--flag=value`, `-v 3`, `-v=3`; a switch alone or
 * with `=true|false`. An unknown flag, a missing value or an argument is an OptionsError naming it.
 */
export function parseOptions(argv: string[], dialect?: Dialect): CommandLine {
  const declared = flags();
  // Flags taking true or false may stand alone, meaning true (as pflag's).
  const takesBool = new Set(declared.filter(({ flag }) => flag.takes === 'bool').map(({ flag }) => flag.name));
  const config: Record<string, { type: 'string' | 'boolean'; short?: string }> = {};
  for (const s of SWITCHES) config[s.name] = { type: 'boolean', ...(s.short ? { short: s.short } : {}) };
  for (const { flag } of declared) config[flag.name] = { type: flag.takes ? 'string' : 'boolean', ...(flag.short ? { short: flag.short } : {}) };
  const { tokens } = parseArgs({ args: argv, options: config, strict: false, allowPositionals: true, tokens: true });
  const values = new Map<string, string>();
  const handled = new Map<string, string>();
  const unimplemented: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.kind === 'positional') throw new OptionsError(`unexpected argument "${token.value}": capstan takes flags only`);
    if (token.kind !== 'option') continue;
    const wanted = config[token.name];
    const foreign = wanted ? undefined : dialect?.flags.get(token.name);
    if (foreign) {
      let value = token.value;
      // "--flag value": a flag parseArgs does not know leaves its value as the next argument.
      const next = tokens[i + 1];
      if (value === undefined && foreign === 'value') {
        if (next?.kind !== 'positional') throw new OptionsError(`flag needs an argument: ${token.rawName}`);
        value = next.value;
        i++;
      }
      value ??= 'true';
      if (dialect!.handled.includes(token.name)) {
        handled.set(token.name, handled.has(token.name) ? `${handled.get(token.name)},${value}` : value);
      } else if (!unimplemented.includes(token.name)) {
        unimplemented.push(token.name);
      }
      continue;
    }
    if (!wanted) throw new OptionsError(`unknown flag: ${token.rawName}`);
    // -v=3: the short form keeps the "=".
    let value = token.value !== undefined && token.inlineValue && !token.rawName.startsWith('--') ? token.value.replace(/^=/, '') : token.value;
    if (wanted.type === 'string' && value === undefined) {
      if (!takesBool.has(token.name)) throw new OptionsError(`flag needs an argument: ${token.rawName}`);
      value = 'true';
    }
    if (wanted.type === 'boolean') {
      value ??= 'true';
      if (value !== 'true' && value !== 'false') throw new OptionsError(`${token.rawName}: must be true or false, not "${value}"`);
    }
    // Repeated list flags add up (pflag's string slices and arrays).
    const listed = declared.find(({ flag }) => flag.name === token.name)?.flag.takes === 'strings' ? values.get(token.name) : undefined;
    values.set(token.name, listed ? `${listed},${value!}` : value!);
  }
  const given: Record<string, unknown> = {};
  for (const { key, flag } of declared) {
    const value = values.get(flag.name);
    if (value !== undefined) given[key] = flag.parse(value);
  }
  // --etcd-servers alone means storing in etcd.
  if (given['etcdServers'] !== undefined && given['storage'] === undefined) given['storage'] = 'etcd';
  const options = withDefaults(given as Partial<Options>);
  checkTogether(options);
  return { options, given: new Set(values.keys()), unimplemented, handled, help: values.get('help') === 'true', version: values.get('version') === 'true' };
}
