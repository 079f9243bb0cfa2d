// The capstan package's main export: start a server from Node tests (see README, "capstan in tests").
export { startCapstan } from './embed/start.js';
export type { Capstan, ClientNodeOptions, KubeconfigObject, StartOptions } from './embed/start.js';
