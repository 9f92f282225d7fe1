/**
 * Every phrase faultline reads in provider messages, codes and types, once, for every provider.
 * Matching is case-insensitive on the message with URLs removed, plus the provider code and type.
 * Each entry names where it is seen. Adapters never keep their own copy of these lists.
 */

/** The input does not fit the model's context window. Wins over a 5xx and over a stream error. */
export const CONTEXT_OVERFLOW_PHRASES: readonly RegExp[] = [
  /context_length_exceeded/, // OpenAI, Groq, DeepSeek, Together: error.code
  /maximum context length/, // OpenAI: "This model's maximum context length is 8192 tokens"
  /context window/, // OpenRouter, Mistral: "exceeds the context window"
  /prompt is too long/, // Anthropic: "prompt is too long: 215000 tokens > 200000 maximum"
  /input token count.*exceeds/, // Gemini: "The input token count (1200000) exceeds the maximum number of tokens allowed"
  /too many tokens(?![\s,]*(please wait|per (second|minute|hour|day)))/, // Mistral: "Prompt contains 40000 tokens ... too many tokens"; Bedrock Converse. Not Bedrock's ThrottlingException "Too many tokens, please wait before trying again." / "Too many tokens per day, ..."
  /input is too long/, // Bedrock: "Input is too long for requested model."
  /too many input tokens/, // Bedrock ValidationException (Anthropic models)
  /exceeds? context limit/, // Bedrock InvokeModel (Anthropic body) ValidationException "input length and `max_tokens` exceed context limit: 199000 + 4096 > 200000"
  /(prompt|input|request).{0,40}(exceeds|longer than).{0,40}(maximum|max|limit).{0,20}(tokens|length|context)/, // Azure, vLLM
  /reduce the length of the messages/, // OpenAI: "Please reduce the length of the messages or completion."
  /string_above_max_length/, // OpenAI: a single message over the limit
  /request_too_large/, // Groq 413 / Anthropic 413 type
  /request too large/, // OpenAI 429 and Groq 413: "Request too large for model ... Please reduce your message size"
  /tokens \+ `?max_new_tokens`? must be <=/, // Together / HF TGI 400/422: "Input validation error: `inputs` tokens + `max_new_tokens` must be <= 8193"
];

/** A 429/413 saying this one request is bigger than the per-minute budget: waiting never helps. */
export const REQUEST_TOO_LARGE_PHRASES: readonly RegExp[] = [
  /request too large/, // OpenAI 429 "Request too large for gpt-4o ... on tokens per min (TPM)"
  /must be reduced/, // OpenAI 429 "The input or output tokens must be reduced in order to run successfully"
  /please reduce your message size/, // Groq 413
];

/** The account's allowance is spent (quota, capacity category). */
export const QUOTA_PHRASES: readonly RegExp[] = [
  /insufficient_quota/, // OpenAI: error.code on 429
  /exceeded your current quota/, // OpenAI: "You exceeded your current quota, please check your plan and billing details"
  /quota exceeded/, // Gemini: "Quota exceeded for metric: ... per day"
  /per[ _-]?day|daily|tokens per day|requests per day|\(tpd\)|\(rpd\)/, // Groq "tokens per day (TPD)", Gemini PerDay, Bedrock daily token throttles
  /per[ _-]?month|monthly (limit|quota|spend)/, // Mistral, Together monthly caps
  /monthly usage limit/, // Mistral 429 once the workspace's monthly usage limit is spent (vanna-ai/vanna#177)
  /free[ _-]?tier/, // Gemini FreeTier quota ids and messages
  /servicequotaexceededexception/, // Bedrock exception name
  /check your plan and billing/, // OpenAI
  /spend limit|spending limit|usage limit reached/, // Together, OpenRouter, DeepSeek
  /\bbilling\b/, // DESIGN.md: "billing" in the message text (URLs are removed before matching) is a spent allowance, e.g. OpenAI "billing hard limit reached"
  /reached your specified api usage limits/, // Anthropic 400 "You have reached your specified API usage limits. You will regain access on ..." (anthropics/claude-code#38035)
];

/** The account cannot pay (billing reason). */
export const BILLING_PHRASES: readonly RegExp[] = [
  /credit balance/, // Anthropic 400: "Your credit balance is too low to access the Anthropic API"
  /insufficient (credits|balance|funds)/, // OpenRouter 402 "Insufficient credits", DeepSeek 402 "Insufficient Balance"
  /payment required/, // 402 reason phrase
  /billing_not_active|billing not active|billing account/, // OpenAI billing_not_active, Gemini billing messages
  /add (more )?credits/, // OpenRouter
  /billing_error/, // Anthropic 402 error type: "There's an issue with your billing or payment information." (a 402 is billing, not a spent quota)
  /invalid_payment_instrument|valid payment instrument must be provided/, // Bedrock 403 AccessDeniedException "Model access is denied due to INVALID_PAYMENT_INSTRUMENT:A valid payment instrument must be provided." (Marketplace models)
  /billing_disabled|requires billing to be enabled/, // Vertex AI 403 "This API method requires billing to be enabled" (ErrorInfo BILLING_DISABLED)
];

/** Structured quota identifiers: which windows mean "the allowance is spent". */
export const QUOTA_ID_LONG_WINDOW: RegExp =
  /per[_-]?day|perday|daily|per[_-]?month|permonth|free[_-]?tier|freetier/i;
/** Structured quota identifiers that are per-minute (or shorter) windows: a rate limit. */
export const QUOTA_ID_SHORT_WINDOW: RegExp = /per[_-]?(minute|second)|perminute|persecond/i;

/** An account block only the provider can lift: permission, contact support. */
export const ACCOUNT_BLOCK_PHRASES: readonly RegExp[] = [
  /organization has been disabled|organisation has been disabled/, // OpenAI 401/403
  /organi[sz]ation(?: org-[\w-]+)? has been (disabled|deactivated)/, // OpenAI 401 "Your organization org-xxx has been disabled."
  /account (has been|is) (disabled|suspended|deactivated|restricted)/, // Anthropic, Mistral, Groq
  /contact support|reach out to support|contact our support/, // Groq "restricted, reach out to support"
  /\brestricted\b.*support/, // Groq organization_restricted
  /organization_restricted|account_deactivated/, // Groq, OpenAI codes
  /consumer_suspended|consumer .{0,120} has been suspended/, // Gemini 403 PERMISSION_DENIED "Consumer 'api_key:…' has been suspended." (ErrorInfo CONSUMER_SUSPENDED)
];

/**
 * The credential itself was rejected, even though the status is 403: AWS answers a bad access key,
 * a bad signature or an expired session token with 403, not 401. Auth wins over the 403 default.
 */
export const CREDENTIAL_REJECTED_PHRASES: readonly RegExp[] = [
  /unrecognizedclientexception|security token included in the request is (invalid|expired)/, // AWS 403 (Bedrock, every AWS service)
  /invalidsignatureexception|signature we calculated does not match/, // AWS 403 SigV4 signature mismatch (wrong secret key)
  /expiredtokenexception/, // AWS 403 expired STS session token
];

/** The key itself was rejected. */
export const AUTH_PHRASES: readonly RegExp[] = [
  /invalid_api_key/, // OpenAI, Groq code
  /incorrect api key/, // OpenAI message
  /invalid x-api-key/, // Anthropic 401
  /authentication_error/, // Anthropic type
  /api key not valid|api_key_invalid/, // Gemini 400 "API key not valid. Please pass a valid API key." (reason API_KEY_INVALID)
  /unrecognizedclientexception|security token included in the request is invalid|invalidsignatureexception/, // AWS
  /unauthenticated/, // Gemini/Vertex status UNAUTHENTICATED
  /invalid authentication|unauthorized/, // Mistral "Unauthorized", generic
  /could not load credentials from any providers|credentialsprovidererror/, // AWS SDK v3 CredentialsProviderError when no credentials are configured (Bedrock and every AWS client)
  /could not resolve authentication method/, // @anthropic-ai/sdk 0.39-1.12 plain Error when no apiKey/authToken is set: "Could not resolve authentication method. Expected ..."
  /_api_key environment variable is missing/, // groq-sdk 0.37-1.6 GroqError from the constructor: "The GROQ_API_KEY environment variable is missing or empty; ..."
  /\bloadapikeyerror\b/, // Vercel AI SDK 5-6 LoadAPIKeyError (its sdkErrorType) when no API key is configured: "OpenAI API key is missing. Pass it using ..."
];

/**
 * The client is configured without a usable endpoint before anything is sent (endpoint reason):
 * no region, so no URL can be built.
 */
export const ENDPOINT_CONFIGURATION_PHRASES: readonly RegExp[] = [
  /^region is missing$/, // AWS SDK v3 (@smithy/config-resolver) when neither the region option nor AWS_REGION is set (Bedrock and every AWS client)
  /^[a-z0-9 ]{1,60} setting is missing\. pass it using the '[a-z0-9_]+' parameter/, // Vercel AI SDK 5-6 LoadSettingError: "AWS region setting is missing. Pass it using the 'region' parameter or the AWS_REGION environment variable."
];

/** The key is valid but not allowed (permission). */
export const PERMISSION_PHRASES: readonly RegExp[] = [
  /permission_denied|permission denied|permission_error/, // Gemini status, Anthropic type
  /accessdeniedexception|don't have access to the model|do not have access/, // Bedrock model not enabled
  /not allowed to/, // OpenAI "You are not allowed to sample from this model"
  /unsupported_country_region_territory|not available in your (country|region)/, // OpenAI, Anthropic region blocks
  /user location is not supported/, // Gemini 400 FAILED_PRECONDITION "User location is not supported for the API use."
];

/** The model does not exist or cannot serve the request. */
export const MODEL_NOT_FOUND_PHRASES: readonly RegExp[] = [
  /model_not_found/, // OpenAI, Groq code
  /model.{0,80}(does not exist|not exist|not found|was not found|is not supported|not supported for|is invalid|invalid model)/, // OpenAI "The model `x` does not exist", Gemini "models/x is not found for API version v1beta"
  /invalid model|unknown model|no such model|model not found/, // Mistral "Invalid model: x", Groq, vLLM
  /provided model identifier is invalid/, // Bedrock ValidationException
  /no endpoints found/, // OpenRouter 404 "No endpoints found that support ..."
  /not_found_error.*model|model.*not_found_error/, // Anthropic 404 "model: claude-x"
  /deploymentnotfound|deployment.{0,40}does not exist/, // Azure OpenAI DeploymentNotFound
  /model version has reached the end of its life|marked by provider as legacy/, // Bedrock 404 ResourceNotFoundException for retired models (0xPlaygrounds/rig#2309, aws-samples/amazon-bedrock-workshop#386)
  /with on-demand throughput isn.t supported/, // Bedrock 400 ValidationException "Invocation of model ID x with on-demand throughput isn't supported. Retry ... with ... an inference profile"
  /\bnosuchmodelerror\b/, // Vercel AI SDK 5-6 NoSuchModelError (its sdkErrorType): a provider or registry has no model of that id
  /model_decommissioned|has been decommissioned/, // Groq 400 model_decommissioned: "The model `x` has been decommissioned and is no longer supported"
];

/** The provider refused the content. */
export const CONTENT_POLICY_PHRASES: readonly RegExp[] = [
  /content_filter|content management policy|content_policy_violation/, // Azure OpenAI 400, OpenAI images
  /responsibleaipolicyviolation/, // Azure inner error code
  /safety (system|filter|settings|reasons)|blocked.{0,40}safety|prohibited_content|blocklist|\bspii\b/, // Gemini block reasons, OpenAI images
  /violat(es|ed|ing) (our|the) (usage|content) polic/, // OpenAI, Mistral moderation
  /flagged (as|by|for)|moderation/, // OpenRouter 403 "Input was flagged", moderation refusals
  /\brefusal\b/, // Anthropic stop_reason "refusal" turned into an error
  /image_generation_user_error/, // OpenAI images
];

/** The provider cannot take this media. */
export const UNSUPPORTED_MEDIA_PHRASES: readonly RegExp[] = [
  /unsupported (media|mime|image|file|audio|content) (type|format)/, // generic, Mistral, Groq
  /(image|file|audio|mime) (type|format) .{0,40}(not supported|unsupported|is invalid)/, // Anthropic "Image format image/bmp is not supported"
  /could not process image|invalid_image_format|unsupported_file/, // OpenAI
  /unsupported media type/, // 415 reason phrase
  /does not match the specified image format/, // Bedrock Converse 400 ValidationException "The provided image does not match the specified image format." (boto/boto3#4415)
  /file must be one of the following types/, // Groq (Whisper) audio.transcriptions 400: "file must be one of the following types: [flac mp3 ...]"
];

/**
 * The model is being loaded or scaled up: overloaded (retry soon), even when the provider answers
 * 429, which would otherwise read as the account's rate limit.
 */
export const WARMING_UP_PHRASES: readonly RegExp[] = [
  /modelnotreadyexception|model is not ready/, // Bedrock 429 ModelNotReadyException "Model is not ready for inference. Wait and try your request again."
  /currently loading/, // Together/HF model warm-up
];

/** The provider is busy: retry soon or elsewhere. */
export const OVERLOADED_PHRASES: readonly RegExp[] = [
  /overloaded/, // Anthropic 529 overloaded_error, Mistral
  /\bunavailable\b|serviceunavailable/, // Gemini status UNAVAILABLE, Bedrock ServiceUnavailableException
  /capacity_exceeded|over capacity|capacity/, // Groq 498 flex tier capacity, OpenRouter
  // Model warm-up (Bedrock ModelNotReadyException, Together/HF "currently loading"): WARMING_UP_PHRASES.
  /engine is currently overloaded|server is busy|too busy/, // OpenAI legacy, DeepSeek
];

/** The request or the account is being throttled for a short while. */
export const RATE_LIMIT_PHRASES: readonly RegExp[] = [
  /rate_limit|rate limit|ratelimit/, // OpenAI rate_limit_exceeded, Anthropic rate_limit_error, Mistral
  /throttlingexception|throttled|too many requests/, // Bedrock, generic 429 text
  /too many tokens, please wait before trying again/, // Bedrock throttlingException frame of ConverseStream, whose type @ai-sdk/amazon-bedrock drops (its error part is the payload alone)
  /resource_exhausted|resource has been exhausted/, // Gemini 429 status
  /tokens per min|requests per min|\(tpm\)|\(rpm\)/, // OpenAI, Groq limit names
];

/** The provider failed on its side. */
export const SERVER_ERROR_PHRASES: readonly RegExp[] = [
  /server_error|internal server error|internal error|internalserverexception|\binternal\b/, // OpenAI server_error, Gemini INTERNAL, Bedrock
  /api_error/, // Anthropic 500 type
  /modelstreamerrorexception|modelerrorexception/, // Bedrock model failures (424, in-stream)
  /bad gateway|gateway timeout|upstream/, // proxies
];

/** The request was malformed. */
export const INVALID_REQUEST_PHRASES: readonly RegExp[] = [
  /invalid_request_error|invalid_argument|validationexception|invalid request/, // OpenAI/Anthropic type, Gemini status, Bedrock
  /tool_use_failed|json_validate_failed/, // Groq codes: the model's output failed the requested format
];

/** Provider-given waits in prose: "Please try again in 20s", "retry in 13.4s", "retry after 60 seconds". */
export const WAIT_IN_TEXT: RegExp =
  /(?:try again|retry)\s+(?:in|after)\s+((?:\d+(?:\.\d+)?(?:ms|h|m|s))+|\d+(?:\.\d+)?\s*(?:milliseconds?|seconds?|secs?|minutes?|mins?|hours?))/i;
