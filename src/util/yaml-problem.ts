/** One problem of a YAML file, with its position (1-based line and column). */
export interface YamlProblem { file: string; line: number; col: number; message: string }

/** `file:line:col: message`. Apart from the YAML parser: a command that reads only checked files does not load it. */
export const formatYamlProblem = (p: YamlProblem) => `${p.file}:${p.line}:${p.col}: ${p.message}`;
