import Anthropic from '@anthropic-ai/sdk';
import AnthropicV039 from 'anthropic-v039';
import fc from 'fast-check';
import Groq from 'groq-sdk';
import GroqV0 from 'groq-sdk-v0';
import OpenAI from 'openai';
import OpenAIV4 from 'openai-v4';
import { describe, expect, it } from 'vitest';
import * as stainless from './index.ts';

// The behaviour of each function on what the real SDKs throw is checked by the adapters'
// `stainlessFamilyCheck` (test-fixtures) on every SDK major they test; here, what needs no server.

type MakeMessage = (status: number | undefined, error: unknown, message: string | undefined) => string;

/** `APIError.makeMessage` of each SDK of the family, newest and oldest tested major. */
const SDK_MAKE_MESSAGE: ReadonlyArray<[string, MakeMessage]> = [
  ['openai 7', (OpenAI.APIError as unknown as { makeMessage: MakeMessage }).makeMessage],
  ['openai 4', (OpenAIV4.APIError as unknown as { makeMessage: MakeMessage }).makeMessage],
  ['@anthropic-ai/sdk 1.12', (Anthropic.APIError as unknown as { makeMessage: MakeMessage }).makeMessage],
  ['@anthropic-ai/sdk 0.39', (AnthropicV039.APIError as unknown as { makeMessage: MakeMessage }).makeMessage],
  ['groq-sdk 1.6', (Groq.APIError as unknown as { makeMessage: MakeMessage }).makeMessage],
  ['groq-sdk 0.37', (GroqV0.APIError as unknown as { makeMessage: MakeMessage }).makeMessage],
];

describe('stainlessMessage', () => {
  for (const [sdk, makeMessage] of SDK_MAKE_MESSAGE) {
    it(`builds the message ${sdk}'s APIError.makeMessage builds, for any status, error value and text`, () => {
      expect(typeof makeMessage).toBe('function');
      fc.assert(
        fc.property(
          fc.option(fc.integer({ min: 100, max: 599 }), { nil: undefined }),
          fc.oneof(
            fc.constant(undefined),
            fc.jsonValue(),
            fc.record({ message: fc.jsonValue() }),
            fc.record({ error: fc.record({ message: fc.string(), type: fc.string() }) }),
          ),
          fc.option(fc.string(), { nil: undefined }),
          (status, error, text) => {
            expect(stainless.stainlessMessage(status, error, text)).toBe(makeMessage(status, error, text));
          },
        ),
        { numRuns: 300 },
      );
    });
  }
});

/** A Proxy whose every trap throws. */
function throwingProxy(target: object = {}): object {
  const trap = () => {
    throw new Error('trap');
  };
  return new Proxy(target, {
    get: trap,
    has: trap,
    ownKeys: trap,
    getOwnPropertyDescriptor: trap,
    getPrototypeOf: trap,
  });
}

describe('totality', () => {
  // Built inside the property (fast-check itself would trip over a throwing Proxy it holds).
  const makers: Array<() => unknown> = [
    () => throwingProxy(),
    () => throwingProxy(new Error('x')),
    () => Object.assign(Object.create(null), { status: 500, headers: throwingProxy(), error: 1 }),
  ];
  const hostile = fc.oneof(
    fc.anything().map((value) => () => value),
    fc.integer({ min: 0, max: makers.length - 1 }).map((index) => makers[index] as () => unknown),
  );

  it('never throws, whatever value or context it is given', () => {
    fc.assert(
      fc.property(
        hostile,
        hostile,
        fc.option(fc.integer(), { nil: undefined }),
        (make, makeOther, status) => {
          const value = make();
          const other = makeOther();
          const context = stainless.readStainlessContext(other as never);
          stainless.isStainlessApiError(value);
          stainless.isSdkWrapper(value);
          stainless.stainlessErrorType(value);
          stainless.stainlessTransportMetadata(value, 'acme', context.signal);
          stainless.stainlessRawDropMetadata(value, 'acme', context);
          stainless.stainlessAnswerOf(value as never, () => value);
          stainless.stainlessAnswerOf({ status, body: '{"error":{}}' }, () => {
            throw new Error('picker');
          });
          stainless.stainlessRequestId(value, other, ['x-request-id'], value);
          stainless.readAnsweredHeaders({ provider: 'acme', message: '', origin: 'http' }, value, other, 0, {
            requestIdHeaders: ['request-id'],
          });
          stainless.sdkConditionMetadata(value, 'acme', 'm', 'missing_credentials');
          stainless.jsonText(value);
          const message = stainless.stainlessMessage(status, value, undefined);
          stainless.messageWithoutBody(message, status);
          stainless.textBodyOf(message, status);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('reads a context whose clock throws as the current time', () => {
    const before = Date.now();
    const context = stainless.readStainlessContext({
      now: () => {
        throw new Error('clock');
      },
    });
    expect(context.now).toBeGreaterThanOrEqual(before);
    expect(context.streaming).toBe(false);
  });
});
