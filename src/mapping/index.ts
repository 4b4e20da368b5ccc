// Public API of the mapping layer: definitions → compiled mappings; CSV → requests; records → CSV.
import { useCompiler } from './folder.js';
import { compileMapping } from './mapping.js';

export { loadMappingFile, loadNamedMapping, parseMapping, formatProblem, type DefinitionProblem } from './load.js';
export { checkMappings, loadMappings, mappingSet, type CheckOptions, type MappingSet } from './folder.js';
export { compileMapping, type Mapping } from './mapping.js';
export { mapInbound, type InboundOutcome, type MappedBatch, type MappedDocument, type RejectedDocument, type SkippedRow, type MapInboundOptions, type X12Share } from './inbound.js';
export { createExportRenderer, createExportWriter, encodeChunks, type ExportRenderer } from './export.js';
export { cachedReferenceIds, TableReferenceIds, type ReferenceIds, type ReferenceKind } from './reference-ids.js';
export type { RowError } from './documents.js';
export { mappingDefinitionSchema, INBOUND_DOCUMENTS, EXPORT_DOCUMENTS, type MappingDefinition } from './definition-schema.js';
export { mappingJsonSchema } from './json-schema.js';
export { referenceTables } from './reference-doc.js';
export { sampleFileProblems, testSamples } from './sample-test.js';

// Whoever maps a file loads this index: the definitions a command compiles on use get their compile step here.
useCompiler(compileMapping);
