import { execFile } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

// The validator ships as an ES module only, which Jest (CommonJS) cannot load: it runs in its own node.
const SCRIPT = `
import { Validator } from '@seriousme/openapi-schema-validator';
let input = '';
for await (const chunk of process.stdin) input += chunk;
const validator = new Validator();
const result = await validator.validate(JSON.parse(input));
process.stdout.write(JSON.stringify({ valid: result.valid, version: validator.version, errors: result.errors }));
`;

export interface OpenApiValidation {
  valid: boolean;
  version: string;
  errors?: unknown;
}

/** Validates a document against the official OpenAPI JSON Schema of its version (3.1 here). */
export function validateOpenApi(document: unknown): Promise<OpenApiValidation> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      ['--input-type=module', '-e', SCRIPT],
      { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout) => (error ? reject(error) : resolve(JSON.parse(stdout) as OpenApiValidation)),
    );
    child.stdin?.end(JSON.stringify(document));
  });
}
