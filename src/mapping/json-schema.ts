import { z } from 'zod';
import { mappingDefinitionSchema } from './definition-schema.js';

/** The JSON Schema of mapping files, as committed in schemas/mapping.schema.json (a test checks for drift). */
export function mappingJsonSchema(): string {
  const schema = z.toJSONSchema(mappingDefinitionSchema, { io: 'input', unrepresentable: 'any' });
  return JSON.stringify({ ...schema, $id: 'https://wisbridge.invalid/schemas/mapping.schema.json', title: 'wisbridge mapping definition' }, null, 2) + '\n';
}
