// The schema engine the server uses for CustomResourceDefinitions: the schema library's (see
// structural-engine.ts); schema-engine.ts's permissive engine remains for tests that want none.
import type { CrdSchemaEngine } from './schema-engine.js';
import { structuralSchemaEngine } from './structural-engine.js';

export const CRD_SCHEMA_ENGINE: CrdSchemaEngine = structuralSchemaEngine;
