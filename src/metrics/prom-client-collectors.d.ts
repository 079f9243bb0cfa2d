// prom-client's default collectors, each a module of its own (lib/metrics/<name>.js) that adds its
// metrics to a registry: typed here, since prom-client types only collectDefaultMetrics.
declare module 'prom-client/lib/metrics/*.js' {
  import type { Registry } from 'prom-client';
  const collect: (registry: Registry, config: { eventLoopMonitoringPrecision?: number }) => void;
  export default collect;
}
