import { classificationFor, FailureReason, type ProviderErrorMetadata } from '@faultline/classify';
import { describe, expect, it } from 'vitest';
import {
  CompletionError,
  CompletionModelNotFoundError,
  classifyError,
  EmbeddingError,
  EmbeddingModelNotFoundError,
  FaultlineContextError,
  FaultlineError,
  ImageGenerationError,
  ImageGenerationModelNotFoundError,
  type InferenceFamily,
  RerankError,
  RerankModelNotFoundError,
  SpeechError,
  SpeechModelNotFoundError,
  ThrownValueError,
  TranscriptionError,
  TranscriptionModelNotFoundError,
} from './index.ts';

const modelMissing: ProviderErrorMetadata = {
  provider: 'openai',
  origin: 'http',
  statusCode: 404,
  message: 'The model `gpt-9` does not exist',
};
const rateLimited: ProviderErrorMetadata = {
  provider: 'openai',
  origin: 'http',
  statusCode: 429,
  message: 'Rate limit reached',
};
const extractorFor = (metadata: ProviderErrorMetadata) => ({
  provider: metadata.provider,
  extract: () => metadata,
});

describe('identity', () => {
  it('carries the registered marker and is recognised without instanceof', () => {
    const error = new FaultlineError('x');
    expect((error as unknown as Record<symbol, unknown>)[Symbol.for('faultline.error')]).toBe(true);
    expect(FaultlineError.isInstance(error)).toBe(true);
    expect(FaultlineError.isInstance(new Error('x'))).toBe(false);
    for (const value of [null, undefined, 'FaultlineError', 1, {}])
      expect(FaultlineError.isInstance(value)).toBe(false);
  });
  it('recognises an error built by another copy of the package (a plain object with the marker)', () => {
    const foreign = Object.assign(new Error('from elsewhere'), {
      [Symbol.for('faultline.error')]: true,
      [Symbol.for('faultline.error.types')]: ['CompletionError', 'FaultlineError'],
      errorType: 'CompletionError',
      classification: classificationFor('overloaded'),
      metadata: { provider: 'x', origin: 'http', message: 'm' },
    });
    expect(FaultlineError.isInstance(foreign)).toBe(true);
    expect(CompletionError.isInstance(foreign)).toBe(true);
    expect(EmbeddingError.isInstance(foreign)).toBe(false);
    expect(classifyError(foreign)).toBe(foreign);
  });
  it('a family check accepts the family and its model-not-found sibling only', () => {
    const missing = new CompletionModelNotFoundError('m', { metadata: modelMissing });
    expect(CompletionError.isInstance(missing)).toBe(true);
    expect(CompletionModelNotFoundError.isInstance(missing)).toBe(true);
    expect(CompletionModelNotFoundError.isInstance(new CompletionError('x'))).toBe(false);
    expect(missing.errorType).toBe('CompletionModelNotFoundError');
    expect(missing.name).toBe('CompletionModelNotFoundError');
  });
});

describe('families', () => {
  const families: Array<[InferenceFamily, typeof FaultlineError, typeof FaultlineError]> = [
    ['completion', CompletionError, CompletionModelNotFoundError],
    ['embedding', EmbeddingError, EmbeddingModelNotFoundError],
    ['image_generation', ImageGenerationError, ImageGenerationModelNotFoundError],
    ['speech', SpeechError, SpeechModelNotFoundError],
    ['transcription', TranscriptionError, TranscriptionModelNotFoundError],
    ['rerank', RerankError, RerankModelNotFoundError],
  ];
  for (const [family, Base, ModelNotFound] of families) {
    it(`${family}: the model-not-found sibling exactly when the reason is model_not_found`, () => {
      const missing = classifyError(new Error('x'), { family, extractors: [extractorFor(modelMissing)] });
      expect(missing.classification.reason).toBe('model_not_found');
      expect(ModelNotFound.isInstance(missing)).toBe(true);
      expect(missing.errorType).toBe(ModelNotFound.errorType);
      const limited = classifyError(new Error('x'), { family, extractors: [extractorFor(rateLimited)] });
      expect(Base.isInstance(limited)).toBe(true);
      expect(ModelNotFound.isInstance(limited)).toBe(false);
      expect(limited.errorType).toBe(Base.errorType);
      expect(limited.toErrorReport().errorType).toBe(Base.errorType);
    });
  }
  it('without a family the root class is used', () => {
    const error = classifyError(new Error('x'), { extractors: [extractorFor(modelMissing)] });
    expect(error.errorType).toBe('FaultlineError');
  });
});

describe('construction', () => {
  it('keeps an Error cause as is (super(message, { cause }))', () => {
    const cause = new Error('sdk');
    const error = new FaultlineError('wrapped', { cause });
    expect(error.cause).toBe(cause);
    expect(error.message).toBe('wrapped');
  });
  it('normalises a non-Error cause into a ThrownValueError holding it, never dropping it', () => {
    for (const value of ['boom', 42, null, { code: 1 }, Symbol('s')]) {
      const error = new FaultlineError('wrapped', { cause: value });
      expect(error.cause).toBeInstanceOf(ThrownValueError);
      expect((error.cause as ThrownValueError).value).toBe(value);
    }
  });
  it('classifies from metadata when no classification is given', () => {
    const error = new FaultlineError(undefined, { metadata: rateLimited });
    expect(error.classification.reason).toBe('rate_limit');
    expect(error.message).toBe('Rate limit reached');
  });
  it('never throws, whatever it is given', () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('trap');
        },
        ownKeys() {
          throw new Error('trap');
        },
        getPrototypeOf() {
          throw new Error('trap');
        },
        has() {
          throw new Error('trap');
        },
      },
    );
    for (const input of [undefined, null, 1, hostile, 'm'.repeat(1_000_000)]) {
      expect(() => new FaultlineError(input, hostile as never)).not.toThrow();
      expect(() => new FaultlineError(input, { cause: hostile, metadata: hostile as never })).not.toThrow();
      expect(() => new FaultlineContextError(input, { cause: hostile })).not.toThrow();
    }
  });
  it('scrubs secrets from its own message and cuts it', () => {
    const error = new FaultlineError(`bad key sk-proj-${'a'.repeat(40)} ${'x'.repeat(10_000)}`);
    expect(error.message).not.toContain('sk-proj-');
    expect(error.message.length).toBeLessThanOrEqual(2000);
  });
  it('keeps rawBody off every enumerable surface', () => {
    const metadata = { ...rateLimited, rawBody: 'RAW-BODY-CANARY' };
    const error = new FaultlineError('x', { metadata });
    expect(error.metadata.rawBody).toBe('RAW-BODY-CANARY');
    expect(Object.keys(error.metadata)).not.toContain('rawBody');
    expect(JSON.stringify(error)).not.toContain('RAW-BODY-CANARY');
    expect(JSON.stringify(error.metadata)).not.toContain('RAW-BODY-CANARY');
  });
  it('every reason can be carried', () => {
    for (const reason of FailureReason.options) {
      const error = new FaultlineError('x', { classification: classificationFor(reason) });
      expect(error.toErrorReport().reason).toBe(reason);
    }
  });
});

describe('FaultlineContextError', () => {
  it('keeps its own errorType and message, inherits the classification below it', () => {
    const inner = classifyError(new Error('sdk'), {
      family: 'completion',
      model: 'gpt-4o',
      extractors: [extractorFor({ ...rateLimited, requestId: 'req_9', retryAfterSeconds: 12 })],
    });
    const middle = new Error('while summarising', { cause: inner });
    const outer = new FaultlineContextError('step 3 failed', { cause: middle, operation: 'summarise' });
    const report = outer.toErrorReport();
    expect(report.errorType).toBe('FaultlineContextError');
    expect(report.message).toBe('step 3 failed');
    expect(report.reason).toBe('rate_limit');
    expect(report.retryAfterSeconds).toBe(12);
    expect(report.model).toBe('gpt-4o');
    expect(report.provider).toBe('openai');
    expect(report.operation).toBe('summarise');
    expect(report.providerMetadata.requestId).toBe('req_9');
    expect(outer.cause).toBe(middle);
  });
  it('a wrapper model wins over the inner one (nearest first)', () => {
    const inner = classifyError(new Error('sdk'), {
      model: 'inner-model',
      extractors: [extractorFor(rateLimited)],
    });
    const outer = new FaultlineContextError('ctx', { cause: inner, model: 'outer-model' });
    expect(outer.toErrorReport().model).toBe('outer-model');
  });
  it('classifies a cause with no FaultlineError below it with the built-in extractors', () => {
    const fetchFailed = new TypeError('fetch failed', {
      cause: Object.assign(new Error('getaddrinfo ENOTFOUND api.example.invalid'), { code: 'ENOTFOUND' }),
    });
    const report = new FaultlineContextError('loading models', { cause: fetchFailed }).toErrorReport();
    expect(report.reason).toBe('endpoint');
    expect(report.errorType).toBe('FaultlineContextError');
  });
});
