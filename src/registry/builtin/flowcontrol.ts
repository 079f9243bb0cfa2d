// flowcontrol.apiserver.k8s.io: what is special about each of its resources. Both kinds have
// path-segment names and keep their generation; v1beta1 and v1beta2 differ only in their
// apiVersion (the same defaults), and v1beta1 is deprecated.
import type { Defaulter } from '../../api/defaults/types.js';
import { defaultFlowSchema, defaultPriorityLevelConfiguration } from '../../api/defaults/flowcontrol.js';
import { flowSchemaTable, priorityLevelConfigurationTable, type TablePrinter } from '../../api/printers/index.js';
import { validateFlowSchema, validatePriorityLevelConfiguration } from '../../api/validation/flowcontrol.js';
import type { BuiltinGroup, BuiltinSpec, BuiltinValidation } from './types.js';

const flowcontrolKind = (kind: string, defaults: Defaulter, create: BuiltinValidation['create'], table: TablePrinter): BuiltinSpec => ({
  nameRule: 'path',
  tracksGeneration: true,
  deprecated: { v1beta1: { deprecatedIn: '1.23', removedIn: '1.26', replacement: `flowcontrol.apiserver.k8s.io/v1beta2 ${kind}` } },
  defaults: { v1beta1: defaults, v1beta2: defaults },
  validation: { create },
  table,
});

export const flowcontrol: BuiltinGroup = {
  name: 'flowcontrol.apiserver.k8s.io',
  resources: {
    flowschemas: flowcontrolKind('FlowSchema', defaultFlowSchema, validateFlowSchema, flowSchemaTable),
    prioritylevelconfigurations: flowcontrolKind('PriorityLevelConfiguration', defaultPriorityLevelConfiguration, validatePriorityLevelConfiguration, priorityLevelConfigurationTable),
  },
};
