// /version: the release capstan serves the API of, and what it runs on.
import { readDataJson } from '../api/data.js';
import type { BuildInfo } from '../metrics/server-metrics.js';

const pkg = readDataJson<{ version: string }>('../package.json');

const ARCH: Record<string, string> = { x64: 'amd64', arm64: 'arm64', ia32: '386' };

/** The reference's version.Info, as /version answers it (and kubernetes_build_info labels it). */
export type VersionInfo = BuildInfo;

export function versionInfo(): VersionInfo {
  return {
    major: '1',
    minor: '25',
    gitVersion: `v1.25.0+capstan.${pkg.version}`,
    gitCommit: process.env['CAPSTAN_GIT_COMMIT'] ?? 'unknown',
    gitTreeState: 'clean',
    buildDate: '1970-01-01T00:00:00Z',
    goVersion: `node${process.versions.node}`,
    compiler: 'tsc',
    platform: `${process.platform}/${ARCH[process.arch] ?? process.arch}`,
  };
}

/** The OpenAPI documents' `info.version`: gitVersion up to its first `-`, as the reference completes its OpenAPI config. */
export function openApiInfoVersion(): string {
  return versionInfo().gitVersion.split('-')[0]!;
}
