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

describe('messageWithoutBody on bodies of other shapes', () => {
  // What reaches makeMessage: Anthropic's SDK passes the whole parsed body, OpenAI's and Groq's its
  // `error` member (a relay's `{"error":"<upstream JSON>"}` gives them the string itself).
  const found: ReadonlyArray<[string, number, unknown, string]> = [
    [
      "a relay's quoted upstream body",
      400,
      { error: JSON.stringify({ error: { message: 'x-1 is not a valid model ID', code: 400 } }) },
      'x-1 is not a valid model ID',
    ],
    [
      'the quoted body alone (the error member)',
      400,
      JSON.stringify({ error: { message: 'x-1 is not a valid model ID', code: 400 } }),
      'x-1 is not a valid model ID',
    ],
    [
      'a quote inside a quote',
      400,
      { error: JSON.stringify({ error: { message: JSON.stringify({ detail: 'Content Exists Risk' }) } }) },
      'Content Exists Risk',
    ],
    [
      'a body that is itself a JSON string',
      400,
      JSON.stringify({ object: 'error', message: 'input is longer than the context length' }),
      'input is longer than the context length',
    ],
    [
      'an errors list',
      429,
      { result: null, success: false, errors: [{ code: 3036, message: 'daily free allocation used' }] },
      'daily free allocation used',
    ],
    [
      "Google's array",
      404,
      [{ error: { code: 404, message: 'Publisher Model `m` was not found', status: 'NOT_FOUND' } }],
      'Publisher Model `m` was not found',
    ],
    [
      'base_resp',
      401,
      { base_resp: { status_code: 2049, status_msg: 'invalid api key' } },
      'invalid api key',
    ],
  ];
  for (const [sdk, makeMessage] of SDK_MAKE_MESSAGE) {
    it(`reads the message out of ${sdk}'s text for bodies without error.message`, () => {
      for (const [, status, error, message] of found) {
        expect(stainless.messageWithoutBody(makeMessage(status, error, undefined), status)).toBe(
          `${status} ${message}`,
        );
      }
    });

    it(`keeps a quoted non-JSON string, never reads other fields, and stops at its bound (${sdk})`, () => {
      const prose = { error: 'Error from provider(x: 400): {"error": truncated' };
      expect(stainless.messageWithoutBody(makeMessage(400, prose, undefined), 400)).toBe(
        '400 Error from provider(x: 400): {"error": truncated',
      );
      const quotedPrompt = { error: JSON.stringify({ prompt: 'CANARY-secret-prompt' }) };
      expect(stainless.messageWithoutBody(makeMessage(400, quotedPrompt, undefined), 400)).toBe(
        '400 error body without a message',
      );
      const prompt = { prompt: 'CANARY-secret-prompt', choices: [] };
      expect(stainless.messageWithoutBody(makeMessage(400, prompt, undefined), 400)).toBe(
        '400 error body without a message',
      );
      let deep: unknown = { error: { message: 'deep' } };
      for (let level = 0; level < 12; level += 1) deep = { error: JSON.stringify(deep) };
      const message = stainless.messageWithoutBody(makeMessage(400, deep, undefined), 400);
      expect(message.startsWith('400 ')).toBe(true);
      expect(message).not.toBe('400 deep');
      expect(message.length).toBeLessThanOrEqual(1004);
    });
  }
});
