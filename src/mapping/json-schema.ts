import { jsonSchemaText } from '../util/schema-docs.js';
import { mappingDefinitionSchema } from './definition-schema.js';

/** The JSON Schema of mapping files, as committed in schemas/mapping.schema.json (src/docs/generated.test.ts checks for drift). */
export const mappingJsonSchema = (): string => jsonSchemaText(mappingDefinitionSchema, 'mapping.schema.json', 'wisbridge mapping definition');
