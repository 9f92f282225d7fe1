import { createOpenAI } from '@ai-sdk/openai';
import { describe, expect, it } from 'vitest';
import { exportList } from '../../../vitest.exports.ts';
import * as entry from './index.ts';
import { classifyMastraError, faultlineErrorProcessor, faultlineModels, withFaultline } from './index.ts';

const model = createOpenAI({ apiKey: 'sk-test', baseURL: 'http://127.0.0.1:9/v1' }).chat('gpt-4o-mini');

// The public surface, pinned name by name: adding, renaming or removing an export means editing
// this list too, so a change to what users can import is always deliberate.
describe('export list', { timeout: 120_000 }, () => {
  it('@faultline/mastra', () => {
    expect(exportList(entry, new URL('./index.ts', import.meta.url))).toEqual({
      values: ['classifyMastraError', 'faultlineErrorProcessor', 'faultlineModels', 'withFaultline'],
      types: [
        'FaultlineErrorProcessor',
        'FaultlineErrorProcessorOptions',
        'FaultlineMastraOptions',
        'FaultlineModelEntry',
        'FaultlineModelList',
        'MastraApiErrorArgs',
        'MastraClassifyOptions',
        'MastraModelLike',
      ],
    });
  });
});

describe('classifyMastraError', () => {
  it('is total: any thrown value gets a classification', () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('getter');
        },
        getPrototypeOf() {
          throw new Error('prototype');
        },
        ownKeys() {
          throw new Error('keys');
        },
      },
    );
    for (const thrown of [
      null,
      undefined,
      'a string',
      42,
      hostile,
      Object.assign(new Error('x'), { stack: undefined }),
    ])
      expect(classifyMastraError(thrown).toErrorReport().reason).toMatch(/^[a-z_]+$/);
  });
});

describe('options', () => {
  it('refuses unknown keys, with the nearest valid one, and bad values with a TypeError at the call', () => {
    expect(() => withFaultline(model, { maxRetries: 2 } as never)).toThrow(
      /unknown option "maxRetries" for withFaultline/,
    );
    expect(() => withFaultline(model, { retry: { maxAtempts: 2 } } as never)).toThrow(/maxAttempts/);
    expect(() => faultlineErrorProcessor({ idleTimeoutMs: 5 } as never)).toThrow(TypeError);
    expect(() => faultlineErrorProcessor({ retry: { maxAttempts: 0 } })).toThrow(TypeError);
    expect(() => classifyMastraError(new Error('x'), { retry: true } as never)).toThrow(TypeError);
  });

  it('refuses what is not a model, a model id string with how to wrap one, and Mastra retries that would stack', () => {
    expect(() => withFaultline('openai/gpt-4o' as never)).toThrow(/ModelRouterLanguageModel/);
    expect(() => faultlineModels([])).toThrow(TypeError);
    expect(() => faultlineModels([{ model, maxRetries: 2 } as never])).toThrow(
      /models\[0\]\.maxRetries must be 0 or nothing/,
    );
    expect(() => faultlineModels([{ model, retries: 2 } as never])).toThrow(/unknown option "retries"/);
  });

  it("keeps an entry's own settings and the model's members, and sets maxRetries 0", () => {
    const [first, second] = faultlineModels([
      { model, id: 'primary', modelSettings: { temperature: 0 } },
      model,
    ]);
    expect(first).toMatchObject({ id: 'primary', modelSettings: { temperature: 0 }, maxRetries: 0 });
    expect(second?.maxRetries).toBe(0);
    expect(first?.model.modelId).toBe('gpt-4o-mini');
    expect(first?.model.provider).toBe(model.provider);
    expect(first?.model.doStream).not.toBe(model.doStream);
    expect(Object.getPrototypeOf(first?.model)).toBe(Object.getPrototypeOf(model));
  });
});
