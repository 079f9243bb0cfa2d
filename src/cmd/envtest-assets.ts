// `capstan envtest-assets DIR`: the folder controller-runtime's envtest finds its binaries in
// (KUBEBUILDER_ASSETS=DIR): `kube-apiserver` and `etcd` run capstan's (this Node, these files),
// and `kubectl` links to the one on PATH when there is one, as setup-envtest's folders hold.
import { chmodSync, existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A string as one word for sh: single-quoted, its own single quotes closed and escaped. */
const shellWord = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/** A sh script that runs one of capstan's commands with this Node. */
function launcher(command: string, script: string, nodeFlags: string[]): string {
  const args = [process.execPath, ...nodeFlags, fileURLToPath(new URL(script, import.meta.url))].map(shellWord).join(' ');
  return `#!/bin/sh\n# ${command} for envtest (KUBEBUILDER_ASSETS): capstan's, written by \`capstan envtest-assets\`.\nexec ${args} "$@"\n`;
}

function onPath(name: string): string | undefined {
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

/** Writes the folder; returns the paths written. */
export function writeEnvtestAssets(dir: string): string[] {
  const folder = resolve(dir);
  mkdirSync(folder, { recursive: true });
  // A test environment's server is small and short-lived: a young generation of 2 MiB keeps an
  // idle one well under 80 MB, at little cost to its speed.
  const files: Array<[string, string]> = [
    ['kube-apiserver', launcher('kube-apiserver', './kube-apiserver.js', ['--max-semi-space-size=2'])],
    ['etcd', launcher('etcd', './etcd.js', [])],
  ];
  const written: string[] = [];
  for (const [name, text] of files) {
    const path = join(folder, name);
    writeFileSync(path, text);
    chmodSync(path, 0o755);
    written.push(path);
  }
  const kubectl = onPath('kubectl');
  const link = join(folder, 'kubectl');
  if (kubectl && resolve(kubectl) !== link) {
    rmSync(link, { force: true });
    symlinkSync(kubectl, link);
    written.push(link);
  }
  return written;
}
