import { classify, type FailureReason, type ProviderErrorMetadata } from '@faultline/classify';
import { describe, expect, it } from 'vitest';

/**
 * Regressions for the Bedrock wordings added to packages/classify/src/vocabulary.ts (and the three
 * small rules in classify.ts: credential rejections win over 403, a model warming up wins over
 * 429, and 424 Failed Dependency is a server error). The scenarios test them end to end through
 * the real SDK; these pin each rule on its own, including the wordings no scenario replays.
 */
function http(statusCode: number, providerCode: string, message: string): ProviderErrorMetadata {
  return {
    provider: 'bedrock',
    origin: 'http',
    statusCode,
    providerCode,
    sdkErrorType: providerCode,
    message,
  };
}

const cases: Array<[string, ProviderErrorMetadata, FailureReason]> = [
  [
    '403 UnrecognizedClientException',
    http(403, 'UnrecognizedClientException', 'The security token included in the request is invalid.'),
    'auth',
  ],
  [
    '403 ExpiredTokenException',
    http(403, 'ExpiredTokenException', 'The security token included in the request is expired'),
    'auth',
  ],
  [
    '403 InvalidSignatureException',
    http(
      403,
      'InvalidSignatureException',
      'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method.',
    ),
    'auth',
  ],
  [
    '403 AccessDeniedException stays permission',
    http(403, 'AccessDeniedException', "You don't have access to the model with the specified model ID."),
    'permission',
  ],
  [
    '429 ModelNotReadyException',
    http(429, 'ModelNotReadyException', 'Model is not ready for inference. Wait and try your request again.'),
    'overloaded',
  ],
  [
    '429 ThrottlingException stays rate_limit',
    http(429, 'ThrottlingException', 'Too many requests, please wait before trying again.'),
    'rate_limit',
  ],
  [
    '429 "Too many tokens, please wait" is a rate limit, not an overflow',
    http(429, 'ThrottlingException', 'Too many tokens, please wait before trying again.'),
    'rate_limit',
  ],
  [
    '429 "Too many tokens per day" is quota',
    http(429, 'ThrottlingException', 'Too many tokens per day, please wait before trying again.'),
    'quota',
  ],
  [
    '400 Mistral-style "too many tokens" is still an overflow',
    {
      provider: 'mistral',
      origin: 'http',
      statusCode: 400,
      message:
        'Prompt contains 40000 tokens and 0 draft tokens, too many tokens for model with 32768 maximum context length',
    },
    'context_overflow',
  ],
  ['424 ModelErrorException', http(424, 'ModelErrorException', 'Received error from model'), 'server_error'],
  [
    '424 ModelErrorException whose model said the input is too long',
    http(
      424,
      'ModelErrorException',
      'Received error from model (model said: Input is too long for requested model.)',
    ),
    'context_overflow',
  ],
  [
    '400 exceed context limit',
    http(
      400,
      'ValidationException',
      'input length and `max_tokens` exceed context limit: 199000 + 4096 > 200000',
    ),
    'context_overflow',
  ],
  [
    '404 legacy model',
    http(
      404,
      'ResourceNotFoundException',
      'Access denied. This Model is marked by provider as Legacy and you have not been actively using the model in the last 15 days.',
    ),
    'model_not_found',
  ],
  [
    '400 image format mismatch',
    http(
      400,
      'ValidationException',
      'The model returned the following errors: The provided image does not match the specified image format.',
    ),
    'unsupported_media',
  ],
  [
    '403 INVALID_PAYMENT_INSTRUMENT',
    http(
      403,
      'AccessDeniedException',
      'Model access is denied due to INVALID_PAYMENT_INSTRUMENT:A valid payment instrument must be provided.',
    ),
    'billing',
  ],
  [
    '404 ResourceNotFoundException naming a model',
    http(404, 'ResourceNotFoundException', 'Model not found'),
    'model_not_found',
  ],
  [
    '404 ResourceNotFoundException naming no model',
    http(
      404,
      'ResourceNotFoundException',
      'The specified resource ARN was not found. Check the ARN and try your request again.',
    ),
    'not_found',
  ],
  [
    'stream throttlingException',
    {
      provider: 'bedrock',
      origin: 'stream_event',
      providerCode: 'ThrottlingException',
      message: 'Too many tokens, please wait before trying again.',
    },
    'rate_limit',
  ],
  [
    'stream modelStreamErrorException',
    {
      provider: 'bedrock',
      origin: 'stream_event',
      providerCode: 'ModelStreamErrorException',
      message: 'Model stream error',
    },
    'server_error',
  ],
];

describe('classify reads Bedrock wording', () => {
  it.each(cases)('%s', (_label, metadata, reason) => {
    expect(classify(metadata).reason).toBe(reason);
  });
});
