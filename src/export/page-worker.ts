/**
 * The worker side of ExportPages (pages.ts): parses, checks and renders the listed pages of an export off the
 * bridge's main thread, with the job's export mapping compiled here from its definition.
 */
import type { ListEndpointId } from '../client/index.js';
import { createExportRenderer } from '../mapping/export.js';
import type { MappingDefinition } from '../mapping/definition-schema.js';
import { compileMapping } from '../mapping/mapping.js';
import { decodeExportPage } from './page-decode.js';
import { serveCalls, threadData } from '../runtime/worker-serve.js';

const { endpoint, mapping } = threadData() as { endpoint: ListEndpointId; mapping: { definition: MappingDefinition; name: string; file: string } };
const renderer = createExportRenderer(compileMapping(mapping.definition, mapping.name, mapping.file));

serveCalls({
  decode: (body: ArrayBuffer) => decodeExportPage(endpoint, body, renderer),
});
