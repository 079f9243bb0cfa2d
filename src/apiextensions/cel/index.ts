// CEL validation rules of CustomResourceDefinitions (`x-kubernetes-validations`, see README.md):
// compile a structural schema's rules with their errors, then validate custom resources with them.
export { compileSchemaRules, compiledRulesFor, PER_RULE_ESTIMATED_COST_LIMIT, PER_SCHEMA_ESTIMATED_COST_LIMIT, type CompiledSchema } from './compile.js';
export { validateRules, PER_CALL_COST_LIMIT, RUNTIME_COST_BUDGET } from './validate.js';
export { escapeName } from './escape.js';
