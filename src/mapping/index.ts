// Public API of the mapping layer: definitions → compiled mappings; CSV → requests; records → CSV.
export { loadMappings, loadMappingFile, loadNamedMapping, checkMappings, parseMapping, mappingSet, formatProblem, type MappingSet, type DefinitionProblem } from './load.js';
export { compileMapping, type Mapping } from './mapping.js';
export { mapInbound, type InboundOutcome, type MappedBatch, type MappedDocument, type RejectedDocument, type SkippedRow, type MapInboundOptions, type X12Share } from './inbound.js';
export { createExportRenderer, createExportWriter, encodeChunks, type ExportRenderer } from './export.js';
export { cachedReferenceIds, TableReferenceIds, type ReferenceIds, type ReferenceKind } from './reference-ids.js';
export type { RowError } from './documents.js';
export { mappingDefinitionSchema, INBOUND_DOCUMENTS, EXPORT_DOCUMENTS, type MappingDefinition } from './definition-schema.js';
export { mappingJsonSchema } from './json-schema.js';
export { referenceTables } from './reference-doc.js';
export { sampleFileProblems, testSamples } from './sample-test.js';
