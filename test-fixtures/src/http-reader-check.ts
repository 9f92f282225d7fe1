import * as v from 'valibot';
/**
 * The check every `read<Provider>HttpFailure` passes: for each of the provider's scenarios that
 * answers with an HTTP error, the reader given the raw response (status, headers, body, url)
 * classifies it as the provider's own SDK path does (the scenario's expected values, which the
 * provider's SDK suite asserts against the real SDK), and it stays total on hostile input.
 * Import it from tests only (`@faultline/test-fixtures/http-reader-check`): it registers vitest suites.
 */

import {
  classify,
  type HttpFailure,
  type HttpFailureReadOptions,
  ProviderErrorMetadata,
} from '@faultline/classify';
import { expectedFor, loadScenarios, type Scenario } from '@faultline/llm-mock';
import { describe, expect, it } from 'vitest';

export type HttpFailureReader = (
  response: HttpFailure,
  options?: HttpFailureReadOptions,
) => ProviderErrorMetadata;

/** The scenario's raw HTTP failure, or `undefined` when it is not an HTTP error answer. */
export function httpFailureOf(
  scenario: Scenario,
  url = 'http://127.0.0.1/v1/endpoint',
): HttpFailure | undefined {
  const response = scenario.response;
  if (response.kind !== 'http' || response.status < 400) return undefined;
  return { status: response.status, headers: { ...(response.headers ?? {}) }, body: response.body, url };
}

/** The provider's scenarios that answer with an HTTP error status. */
export function httpFailureScenarios(provider: string): Scenario[] {
  return loadScenarios(provider).filter((scenario) => httpFailureOf(scenario) !== undefined);
}

export interface HttpReaderCheckOptions {
  readonly provider: string;
  readonly read: HttpFailureReader;
}

export function httpReaderCheck({ provider, read }: HttpReaderCheckOptions): void {
  describe(`${read.name}: ${provider}'s HTTP scenarios from the raw response`, () => {
    const scenarios = httpFailureScenarios(provider);

    it('has HTTP error scenarios to read', () => {
      expect(scenarios.length).toBeGreaterThan(5);
    });

    for (const scenario of scenarios) {
      it(scenario.id, () => {
        const expected = expectedFor(scenario);
        const failure = httpFailureOf(scenario) as HttpFailure;
        const metadata = read(failure, { sdkErrorType: 'APICallError' });
        expect(v.is(ProviderErrorMetadata, metadata)).toBe(true);
        expect(metadata.provider).toBe(provider);
        expect(metadata.sdkErrorType).toBe('APICallError');
        const classification = classify(metadata);
        expect({
          category: classification.category,
          reason: classification.reason,
          retryable: classification.retryable,
          userAction: classification.userAction.kind,
        }).toEqual({
          category: expected.category,
          reason: expected.reason,
          retryable: expected.retryable,
          userAction: expected.userAction,
        });
        if (expected.retryAfterSeconds !== undefined) {
          expect(classification.retryAfterSeconds).toBeCloseTo(expected.retryAfterSeconds, 1);
        }
        if (expected.statusCode !== undefined) expect(metadata.statusCode).toBe(expected.statusCode);
        if (expected.providerCode !== undefined) expect(metadata.providerCode).toBe(expected.providerCode);
        // The raw body stays in memory only.
        const serialised = JSON.stringify(metadata);
        expect(serialised).not.toContain('rawBody');
        const body = failure.body ?? '';
        if (body.length > 60) expect(serialised).not.toContain(body.slice(0, 60));
      });
    }

    it('is total: hostile statuses, headers and bodies give valid metadata', () => {
      const hostileHeaders = new Proxy(
        {},
        {
          get() {
            throw new Error('header getter');
          },
          ownKeys() {
            throw new Error('header keys');
          },
        },
      );
      const inputs: unknown[] = [
        { status: 500, headers: hostileHeaders, body: '{"error":' },
        { status: Number.NaN, body: undefined },
        { status: 429, headers: null, body: 42 },
        { status: 400, body: `{"error":${'['.repeat(10_000)}` },
        { status: 502, body: `<html><title>Bad</title>${'x'.repeat(5 * 1024 * 1024)}</html>` },
        { status: 400, body: `{"error":{"message":"${'m'.repeat(1024 * 1024)}"}}` },
        { status: 200, body: '{}' },
        null,
        'a string',
      ];
      for (const input of inputs) {
        const metadata = read(input as HttpFailure);
        expect(v.is(ProviderErrorMetadata, metadata)).toBe(true);
        expect(metadata.provider).toBe(provider);
        expect(metadata.message.length).toBeLessThanOrEqual(8192);
      }
    });
  });
}
