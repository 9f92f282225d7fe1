import { describe, expect, it } from 'vitest';
import {
  detectLoggedProvider,
  detectProvider,
  loggedError,
  parseHeaderLines,
  resolveProviderName,
  responseFromLoggedError,
} from './captured-input.ts';
import { CommandFailure } from './terminal.ts';

describe('detectProvider', () => {
  it.each([
    ['anthropic', { type: 'error', error: { type: 'rate_limit_error', message: 'x' } }, {}],
    ['google-genai', { error: { code: 429, message: 'x', status: 'RESOURCE_EXHAUSTED' } }, {}],
    ['openai', { error: { message: 'x', type: 'requests', code: 'rate_limit_exceeded' } }, {}],
    ['mistral', { object: 'error', message: 'x', type: 'invalid_model', code: '1500' }, {}],
    ['bedrock', { __type: 'ThrottlingException', message: 'x' }, {}],
    ['bedrock', { message: 'x' }, { 'x-amzn-errortype': 'ThrottlingException:http://internal.amazon.com/' }],
  ])('reads %s from the body shape and headers', (provider, body, headers) => {
    expect(detectProvider(body, headers)).toBe(provider);
  });

  it.each([[undefined], ['<html>'], [{}], [{ error: 'text' }], [[1, 2]]])('claims nothing for %j', (body) => {
    expect(detectProvider(body)).toBeUndefined();
  });
});

describe('log lines', () => {
  it('finds pino’s err, and takes a winston entry (merged fields) as the error itself', () => {
    const error = { type: 'RateLimitError', message: 'm', status: 429, stack: 's' };
    expect(loggedError({ level: 50, msg: 'failed', err: error })).toBe(error);
    const winston = {
      level: 'error',
      message: '429 x',
      status: 429,
      error: { message: 'x', type: 'requests' },
    };
    expect(loggedError(winston)).toBe(winston);
  });

  it('tells the Stainless SDKs apart by where the body sits', () => {
    expect(detectLoggedProvider({ status: 429, error: { message: 'x', type: 'requests', code: 'c' } })).toBe(
      'openai',
    );
    expect(detectLoggedProvider({ status: 429, error: { error: { message: 'x', type: 'requests' } } })).toBe(
      'groq',
    );
    expect(
      detectLoggedProvider({ status: 529, error: { type: 'error', error: { type: 'overloaded_error' } } }),
    ).toBe('anthropic');
    expect(detectLoggedProvider({ name: 'ApiError', status: 429, message: '{"error":{}}' })).toBe(
      'google-genai',
    );
    expect(detectLoggedProvider({ name: 'SDKError', statusCode: 400, body: '{}' })).toBe('mistral');
    expect(detectLoggedProvider({ name: 'ThrottlingException', $fault: 'client', $metadata: {} })).toBe(
      'bedrock',
    );
  });

  it('rebuilds the HTTP answer of a serialised error', () => {
    expect(
      responseFromLoggedError(
        { status: 429, headers: { 'Retry-After': '3' }, error: { message: 'x', type: 'requests' } },
        'openai',
      ),
    ).toEqual({
      status: 429,
      headers: { 'retry-after': '3' },
      body: '{"error":{"message":"x","type":"requests"}}',
    });
    expect(
      responseFromLoggedError(
        { name: 'ThrottlingException', $metadata: { httpStatusCode: 429 }, message: 'slow' },
        'bedrock',
      ),
    ).toEqual({
      status: 429,
      headers: { 'x-amzn-errortype': 'ThrottlingException' },
      body: '{"message":"slow"}',
    });
    expect(
      responseFromLoggedError({ name: 'TypeError', message: 'fetch failed' }, undefined),
    ).toBeUndefined();
  });
});

describe('input checks', () => {
  it('parses headers and rejects a line without a name', () => {
    expect(parseHeaderLines(['Retry-After: 20', 'x-a: 1', 'X-A: 2'])).toEqual({
      'retry-after': '20',
      'x-a': '1, 2',
    });
    expect(() => parseHeaderLines(['no colon'])).toThrow(CommandFailure);
    expect(() => parseHeaderLines([': value'])).toThrow(CommandFailure);
  });

  it('resolves provider names and aliases', () => {
    expect(resolveProviderName('Gemini')).toBe('google-genai');
    expect(resolveProviderName('aws')).toBe('bedrock');
    expect(() => resolveProviderName('acme')).toThrow('unknown provider "acme"');
  });
});
