// kube-apiserver 1.25's command line as data (data/kube-apiserver-flags.json) and its --help:
// light enough for the launcher to answer --help without loading the server.
import { readDataJson } from '../api/data.js';
import { featureGateHelpLines } from '../api/feature-gates.js';

export interface ReferenceFlag {
  name: string;
  /** The type word the reference's help prints ("bool" for a switch). */
  type: string;
  default: string | null;
}

/** kube-apiserver 1.25's flags. */
export const REFERENCE_FLAGS = readDataJson<ReferenceFlag[]>('kube-apiserver-flags.json');

/** The reference's --help: its synopsis, then every flag with its type and default. */
export function kubeApiserverHelp(): string {
  const lines = REFERENCE_FLAGS.map((f) => {
    const left = `      --${f.name}${f.type === 'bool' ? '' : ` ${f.type}`}`;
    const shown = f.default === null || f.default === '' ? '' : ` (default ${f.default})`;
    const line = `${left.padEnd(60)}${shown.trim()}`.trimEnd();
    // The gates it knows, one a line, as the reference's help lists them under the flag.
    return f.name === 'feature-gates' ? [line, ...featureGateHelpLines().map((g) => `${' '.repeat(60)}${g}`)].join('\n') : line;
  });
  return `The Kubernetes API server validates and configures data
for the api objects which include pods, services, replicationcontrollers, and
others. The API Server services REST operations and provides the frontend to the
cluster's shared state through which all other components interact.
(capstan: the flags below are accepted; those capstan does not implement are named at start.)

Usage:
  kube-apiserver [flags]

Flags:
${lines.join('\n')}
`;
}
