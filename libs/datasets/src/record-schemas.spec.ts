import { readFileSync } from 'node:fs';
import path from 'node:path';
import { recordJsonSchemas } from './record-schemas';

const DIR = path.resolve(__dirname, '../../../docs/schemas');

describe('the export schemas in docs/schemas', () => {
  it.each(Object.entries(recordJsonSchemas()))(
    '%s is generated from the zod contract and up to date',
    (file, text) => {
      // Regenerate with: npm run dataset:schemas
      expect(readFileSync(path.join(DIR, file), 'utf8')).toBe(text);
    },
  );
});
