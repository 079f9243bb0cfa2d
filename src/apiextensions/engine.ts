// The schema engine the server uses for CustomResourceDefinitions: the permissive stand-in until
// src/apiextensions/schema/ is merged, then that engine (this is the one line to change).
import { permissiveSchemaEngine, type CrdSchemaEngine } from './schema-engine.js';

export const CRD_SCHEMA_ENGINE: CrdSchemaEngine = permissiveSchemaEngine;
