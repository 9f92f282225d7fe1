// Writes error-report.schema.json, the ErrorReport schema as JSON Schema, from the valibot schema.
import { writeFileSync } from 'node:fs';
import { errorReportJsonSchema } from '../src/report-json-schema.ts';

const target = new URL('../error-report.schema.json', import.meta.url);
writeFileSync(target, `${JSON.stringify(errorReportJsonSchema(), null, 2)}\n`);
