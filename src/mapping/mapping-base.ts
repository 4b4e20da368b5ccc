import type { Dialect, ExportDocument, InboundDocument, MappingDefinition } from './definition-schema.js';
import { EXPORT_DOCUMENTS } from './export-documents.js';

/**
 * What a mapping is without its plan: its names, direction, dialect and file patterns, read from the definition
 * alone (what a configuration's check and the choice of a file's mapping look at). Apart from the compile steps
 * (mapping.ts), so that a checked definition is described without loading them (folder.ts).
 */
export interface MappingBase {
  readonly name: string;
  /** The YAML file it came from ('' when built from an object). */
  readonly file: string;
  readonly definition: MappingDefinition;
  readonly direction: 'inbound' | 'export';
  readonly document: InboundDocument | ExportDocument;
  readonly dialect: Dialect;
  /** Whether a file name matches the definition's `files` patterns. */
  matches(fileName: string): boolean;
}

export function globToRegExp(glob: string): RegExp {
  const body = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${body}$`, 'i');
}

export function mappingBase(definition: MappingDefinition, name: string, file = ''): MappingBase {
  const patterns = (Array.isArray(definition.files) ? definition.files : [definition.files]).map(globToRegExp);
  return {
    name, file, definition, document: definition.document, dialect: definition.dialect,
    direction: (EXPORT_DOCUMENTS as readonly string[]).includes(definition.document) ? 'export' : 'inbound',
    matches: (fileName: string) => patterns.some((p) => p.test(fileName)),
  };
}
