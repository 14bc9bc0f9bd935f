// Writes the JSON Schema of every export record to docs/schemas/ (npm run dataset:schemas).
import { recordJsonSchemas } from '@echoloop/datasets';
import { writeFileSync } from 'node:fs';
import path from 'node:path';

const dir = path.resolve(__dirname, '../../../docs/schemas');
for (const [file, text] of Object.entries(recordJsonSchemas())) {
  writeFileSync(path.join(dir, file), text);
  process.stdout.write(`wrote docs/schemas/${file}\n`);
}
