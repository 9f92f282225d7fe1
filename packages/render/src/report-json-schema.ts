// The report's JSON Schema, generated from the valibot schema by @valibot/to-json-schema (valibot's
// own converter). Kept out of report-schema.ts, which every adapter loads: only the generating
// script and its test import this, so the converter is a devDependency and never in an app.
import { toJsonSchema } from '@valibot/to-json-schema';
import { ErrorReport, RetryableAt } from './report-schema.ts';

/**
 * The report's JSON Schema (draft 2020-12), for consumers in other languages: what the package ships
 * as `@faultline/render/error-report.schema.json` (scripts/generate-schema.ts writes it; a test holds
 * the file equal to this).
 */
export function errorReportJsonSchema(): Record<string, unknown> {
  const { $schema, ...schema } = toJsonSchema(ErrorReport, {
    target: 'draft-2020-12',
    typeMode: 'output',
    // Where the converter writes otherwise than the schema as published so far: a numeric literal
    // and a picklist state their `type` (first), an object of optional keys only no `required`.
    overrideSchema: ({ valibotSchema, jsonSchema }) => {
      if (valibotSchema.type === 'literal' && typeof jsonSchema.const === 'number')
        return { type: 'number', ...jsonSchema };
      if (valibotSchema.type === 'picklist') return { type: 'string', enum: jsonSchema.enum };
      if (Array.isArray(jsonSchema.required) && jsonSchema.required.length === 0) {
        const { required: _empty, ...rest } = jsonSchema;
        return rest;
      }
      return undefined;
    },
    // JSON has no NaN or Infinity, so `finite` adds nothing; a safe integer is an integer within
    // ±(2^53 − 1), as the converter writes `integer` and a later minimum or maximum narrows it;
    // `retryableAt`'s pattern is one shape of an ISO 8601 date-time, and says so.
    overrideAction: ({ valibotAction, jsonSchema }) => {
      if (valibotAction === RetryableAt.pipe[1]) return { ...jsonSchema, format: 'date-time' };
      if (valibotAction.type === 'finite') return jsonSchema;
      if (valibotAction.type === 'safe_integer')
        return {
          ...jsonSchema,
          type: 'integer',
          minimum: Number.MIN_SAFE_INTEGER,
          maximum: Number.MAX_SAFE_INTEGER,
        };
      return undefined;
    },
  });
  return {
    $schema,
    ...schema,
    title: 'ErrorReport',
    description:
      'The strict, versioned, JSON-only report of one failure classified by faultline (@faultline/render).',
  };
}
