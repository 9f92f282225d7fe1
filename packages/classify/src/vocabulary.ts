/**
 * The provider-blind vocabularies classify reads, one per feature. Each entry is a pattern of a
 * MEANING (a window, a spent allowance, an unavailable model ...), written to catch the family of
 * wordings providers and gateways use, not one provider's sentence; the comment names real
 * wordings it covers. Matching is on the lower-cased message with URLs removed, plus the
 * provider's code and type. SDKs' own messages are not here: adapters recognise them and pass an
 * `sdkCondition` (schemas.ts).
 *
 * A vocabulary is data: to cover a new wording, add one pattern (and a comment naming who says
 * it) to the list. Each list is compiled on first use into ONE alternation of its entries, in
 * order, and its first match anywhere in the text is the feature's evidence.
 *
 * What a fresh process pays (the first failures of a serverless function or a CLI) is mostly V8
 * compiling these lists, so two spellings keep that cost near the list's length without changing
 * what matches: a word's edge is written `(?<!\w)word(?!\w)`, not `\bword\b` (the same test; V8
 * compiles a `\b` by looking ahead through the rest of the pattern, once for every way into it),
 * and an entry that chains groups of alternatives marks the end of a group with `(?=)`, an empty
 * lookahead that always holds (V8 compiles what follows a group once for each of its alternatives,
 * up to ten copies; after `(?=)` it compiles it once). bench/ measures it.
 */

/** A vocabulary: its entries, compiled on first use into one alternation. */
export class Vocabulary {
  private compiled: RegExp | undefined;
  constructor(
    readonly name: string,
    private readonly entries: () => readonly RegExp[],
  ) {}

  /** The first piece of `text` that matches, or `undefined`. */
  find(text: string): string | undefined {
    this.compiled ??= new RegExp(
      this.entries()
        .map((entry) => `(?:${entry.source})`)
        .join('|'),
    );
    return this.compiled.exec(text)?.[0];
  }
}

const vocabulary = (name: string, entries: () => readonly RegExp[]): Vocabulary =>
  new Vocabulary(name, entries);

/** The input does not fit the model's context window. Wins over a 5xx, a 429 and a stream error. */
export const OVERFLOW = vocabulary('overflow', () => [
  // OpenAI/Groq/DeepSeek/Together code; "maximum context length is 8192 tokens" (OpenAI, vLLM,
  // LiteLLM ContextWindowExceededError); "exceeds the context window" (OpenRouter, Mistral);
  // "context length exceeded"; "context_window_exceeded" (Anthropic stop reason as an error) and
  // "contextwindowexceeded" are the first alternative, separators optional.
  /context[ _-]?(?:length|window|limit|size)(?=)[ _-]?(?:exceeded|is exceeded)|(?:maximum|max|model'?s?)(?=) context[ _-]?(?:length|window|size)|exceeds? (?:the )?(?=)(?:model'?s? )?(?=)context[ _-]?(?:length|window|limit|size)/,
  // "prompt is too long: 215000 tokens > 200000 maximum" (Anthropic), "Input is too long for
  // requested model." (Bedrock), "input too long", "The message you submitted was too long".
  /(?:prompt|input|message|messages|request body|text)(?=) (?:is |was |are )?(?=)too long/,
  // "The input token count (1200000) exceeds the maximum number of tokens allowed" (Gemini).
  /input token count.{0,40}exceeds/,
  // Together 4xx "Input token count + max_tokens parameter must be less than the context length of
  // the model being queried."
  /(?:less|fewer|smaller) than (?:or equal to )?(?=)the (?:model'?s? )?(?=)(?:maximum )?context (?:length|window|size)/,
  // Bedrock InvokeModel (Anthropic body) "input length and `max_tokens` exceed context limit".
  /exceeds? context limit/,
  // Azure, vLLM: "This model's maximum ... Your request exceeds the maximum ... tokens".
  /(?:prompt|input|request).{0,40}(?:exceeds|longer than).{0,40}(?:maximum|max|limit).{0,20}(?:tokens|length|context)/,
  // OpenAI "Please reduce the length of the messages or completion."; string_above_max_length.
  /reduce the length of the messages|string_above_max_length/,
  // Groq 413 / Anthropic 413 type request_too_large; OpenAI 429 / Groq 413 "Request too large for model".
  /request[ _]too[ _]large/,
  // Together / HF TGI 400/422 "`inputs` tokens + `max_new_tokens` must be <= 8193".
  /tokens \+ `?max_new_tokens`? must be <=/,
  // llama.cpp/LocalAI "request (33056 tokens) exceeds the available context size (32768 tokens)", "Context
  // size has been exceeded."; LM Studio "Trying to keep the first 15857 tokens when context the overflows",
  // "The number of tokens to keep from the initial prompt is greater than the context length".
  /exceeds? the available context size|context size has been exceeded|context (?:the )?overflows|tokens to keep .{0,60}greater than the context length/,
  // SGLang "The input (61709 tokens) is longer than the model's context length"; DashScope "Range of input
  // length should be [1, 204800]"; Moonshot "model max length exceeded", "Your request exceeded model token
  // limit", "Input token length too long"; GitHub Models 413 tokens_limit_reached "Request body too large
  // for gpt-4.1 model"; vLLM "max_tokens must be at least 1, got -186" (the prompt left no room to answer).
  /longer than the (?:\S+ )?(?:maximum )?context length|range of input length should be|max length exceeded|exceeded model token limit|token length too long|tokens_limit_reached|request body too large for|max_tokens must be at least 1, got -/,
  // SiliconFlow 20015 "length of prompt_tokens (68957) must be less than max_seq_len (65536)."
  /less than max_seq_len/,
  // xAI "This model's maximum prompt length is 131072 but the request contains 136973 tokens."; ds4 (a local
  // server) "Prompt tokens (40312) exceeds context size (32768)" (type context_exceeded).
  /maximum (?:prompt|input) length is|exceeds context size|context_exceeded/,
]);

/**
 * Words that mean an overflow only when no window or throttle is named beside them: "too many
 * tokens" is the input's size in Mistral's "Prompt contains 40000 tokens ... too many tokens" and
 * Bedrock's "too many input tokens", but a rate in Cerebras' "Tokens per minute limit exceeded -
 * too many tokens processed" and Bedrock's ThrottlingException "Too many tokens, please wait".
 */
export const AMBIGUOUS_OVERFLOW = vocabulary('ambiguousOverflow', () => [/too many (?:input )?tokens/]);

/**
 * The requested output cap is above the model's output limit (Cohere "too many tokens: max tokens must
 * be less than or equal to 4096, the maximum output for this model"): a parameter to lower, never an
 * input to compress, so the ambiguous "too many tokens" beside it is not an overflow.
 */
export const OUTPUT_CAP = vocabulary('outputCap', () => [
  /max(?:imum)?[ _]?(?:new[ _])?(?=)tokens (?:must|should)(?=) be (?:less than|at most|<=?)|maximum output (?:for|of) (?:this|the) model/,
]);

/** A 429/413 saying this one request is bigger than the per-minute budget: waiting never helps. */
export const TOO_LARGE_FOR_BUDGET = vocabulary('tooLargeForBudget', () => [
  // OpenAI 429 "The input or output tokens must be reduced in order to run successfully";
  // Groq 413 "Please reduce your message size and try again".
  /must be reduced|reduce your message size/,
]);

/**
 * The numbers of a limit message ("Limit 7000, Used 0, Requested ~12903": OpenAI, Groq, Together):
 * a request larger than the whole limit can never fit, however long the wait.
 */
export const LIMIT_NUMBERS = vocabulary('limitNumbers', () => [
  /(?<!\w)limit:? ~?[\d,.]+\b.{0,80}?(?<!\w)requested:? ~?[\d,.]+/,
]);

/**
 * Words that put a window or an allowance in context: a text window ("per minute") counts only
 * next to a limit (a 400 quoting "max 100 requests per minute" in its docs is still invalid).
 */
export const LIMIT_CONTEXT = vocabulary('limitContext', () => [
  /limit|quota|exceed|exhaust|throttl|too many|used up|run out|ran out|out of|budget|allowance|reached/,
]);

/** A short window: per second or per minute (RPM/TPM/RPS). A rate limit whatever else is said. */
export const SHORT_WINDOW = vocabulary('shortWindow', () => [
  // "tokens per min (TPM)" (OpenAI, Groq), "requests per minute", "per_minute" (Vertex metric
  // names), "per-second"; with a count, "requests per 1 minute".
  /per[ _-]?(?:second|sec|minute|min)(?!\w)/,
  /per[ _-]?\d+ ?(?:second|sec|minute|min)(?!\w)/,
  // Cohere "limited to 40 API calls / minute": a window written with a slash after what it counts.
  /(?<!\w)(?:calls?|requests?|tokens?)(?=) ?\/ ?(?:second|sec|minute|min)(?!\w)/,
  /\((?:rpm|tpm|rps|tps|ipm)\)|(?<!\w)(?:rpm|tpm|rps)(?!\w)(?: limit)?/,
]);

/**
 * A long window: per day/week/month/year, daily/monthly, RPD/TPD, or a reset at a date. A spent
 * allowance whatever else is said ("rate limit reached ... on tokens per day (TPD)").
 */
export const LONG_WINDOW = vocabulary('longWindow', () => [
  // Groq "tokens per day (TPD)", Gemini "per day", Bedrock "Too many tokens per day"; with a
  // count, "per 30 days".
  /per[ _-]?(?:day|week|month|year)(?!\w)|perday|permonth/,
  /per[ _-]?\d+ ?(?:day|week|month|year)(?!\w)/,
  // Cohere "limited to 1000 API calls / month" (a trial key's allowance).
  /(?<!\w)(?:calls?|requests?|tokens?)(?=) ?\/ ?(?:day|week|month|year)(?!\w)/,
  // Mistral "monthly usage limit", "daily quota", "weekly limit" (Claude plans).
  /(?<!\w)(?:daily|weekly|monthly|yearly|annual)(?!\w)/,
  /\((?:rpd|tpd)\)|(?<!\w)(?:rpd|tpd)(?!\w)/,
  // Anthropic "You will regain access on 2025-12-01 at 00:00 UTC"; "resets at 3pm", "resets on
  // June 1"; "limit will reset at ...".
  /regain access (?:on|at)|resets? (?:at|on)(?!\w)|reset (?:at|on) \d|until \d{4}-\d{2}-\d{2}/,
  // OpenRouter "Rate limit exceeded: limit_rpd/google/gemini-2.0-flash-thinking-exp-01-21/…" (a :free model's
  // requests per day; the underscore is a word character, so the word-edge entry above does not see it).
  /limit_(?:rpd|tpd)(?!\w)/,
]);

/** A wait in words: "Please try again in 20s", "retry in 13.4s", "try again in 2h 14m". */
export const WAIT_IN_WORDS = vocabulary('waitInWords', () => [
  /(?:try again|retry|resets?|available again)\s+(?:in|after)\s+(?:about\s+)?(?:\d+(?:\.\d+)?\s*(?:milliseconds?|ms|hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s)(?![a-z])[\s,]*(?:and\s+)?)+/,
]);

/** The account cannot pay: billing. */
export const PAYMENT = vocabulary('payment', () => [
  // Anthropic 400 "Your credit balance is too low"; OpenRouter 402 "Insufficient credits";
  // DeepSeek 402 "Insufficient Balance"; "insufficient funds"; "out of credits".
  /credit balance|insufficient (?:credits?|balance|funds)|(?:out of|no remaining|no) credits|add (?:more )?credits/,
  // 402 reason phrase; a payment that failed; Bedrock 403 INVALID_PAYMENT_INSTRUMENT (Marketplace models).
  /payment (?:required|instrument|failed)|invalid_payment_instrument/,
  // OpenAI billing_not_active; Anthropic 402 billing_error; Vertex 403 "requires billing to be
  // enabled" (ErrorInfo BILLING_DISABLED); "billing account ... is disabled".
  /billing[ _](?:not[ _]active|error|disabled|account)|requires billing to be enabled|billing is not (?:active|enabled)/,
  // DashScope Arrearage "make sure your account is in good standing"; Ark AccountOverdueError "an overdue
  // balance"; "Your account balance is insufficient", "Your paid balance is insufficient" (SiliconFlow),
  // "Insufficient account balance" (INSUFFICIENT_BALANCE); Zhipu/relays 余额不足, 欠费 (in arrears); xAI "doesn't
  // have any credits"; one-api/new-api "user quota is not enough" (insufficient_user_quota): the relay's prepaid
  // balance (docs/contributing/contracts.md).
  /arrearage|in good standing|overdue balance|accountoverdue|balance is insufficient|insufficient (?:account |paid )?balance|insufficient_balance|余额不足|欠费|(?:doesn't|does not|don't) have any credits|quota is not enough|insufficient_user_quota/,
]);

/**
 * The remedy named, not the cause: "add a payment method", "complete your payment information". Billing
 * when nothing else is said; beside a spent allowance ("The free quota has been exhausted. To continue ...
 * please complete your payment information": DashScope AllocationQuota.FreeTierOnly) the allowance is the cause.
 */
export const PAYMENT_REMEDY = vocabulary('paymentRemedy', () => [/payment (?:method|information|details)/]);

/**
 * A spent allowance: quotas, usage/spend/key limits, budgets, plans, allocations, credits,
 * "extra usage", "billing" in words (DESIGN: not inside a URL).
 */
export const ALLOWANCE = vocabulary('allowance', () => [
  // OpenAI insufficient_quota "You exceeded your current quota, please check your plan and billing
  // details"; Gemini "Quota exceeded for metric"; Bedrock ServiceQuotaExceededException.
  // Not "quota" alone: Vertex's "Resource has been exhausted (e.g. check quota)." and "Quota exceeded
  // for aiplatform.googleapis.com/online_prediction_requests_per_base_model" are per-minute quotas
  // (DESIGN: a 429 is rate_limit unless the words say the allowance is spent).
  // A gateway's "Token quota exhausted, please contact the administrator" (consumer_token_quota_exceeded), DashScope
  // "The free quota has been exhausted".
  /insufficient_quota|exceeded your current quota|(?:out of|no remaining) quota|quota (?:has been |was |is )?(?:exhausted|used up)|servicequotaexceeded/,
  // Anthropic "You have reached your specified API usage limits"; Mistral "monthly usage limit";
  // OpenRouter "Key limit exceeded"; Together/DeepSeek "spend limit"; "spending cap".
  /usage limits?|(?:spend|spending|key|credit|account)(?=) (?:limit|cap)s?(?!\w)(?! per)/,
  // LiteLLM "Budget has been exceeded! Current cost: ..., Max budget: ..."; ExceededBudget.
  /budget/,
  // "You have exceeded your allocation"; "allowance exhausted"; Claude "out of extra usage".
  /allocation|allowance|extra usage/,
  // "check your plan", "upgrade your plan", "plan limit", "on your current plan", subscriptions.
  /(?:your|current) (?:\w+ )?plan(?!\w)|plan (?:limit|quota)|upgrade (?:your )?plan/,
  // A limit the owner set: Ark SetLimitExceeded "has reached the set inference limit for the [model] model, and the
  // model service has been paused" (its Safe Experience Mode).
  /reached the (?:set|configured) (?:\w+ )?limit/,
  // "billing hard limit reached", "check your billing details".
  /(?<!\w)billing(?!\w)/,
  // Qwen OAuth "Free allocated quota exceeded"; Cloudflare 3036 "your daily free allocation" (the window also
  // says daily); Zhipu 1308 已达到 5 小时的使用上限 (a plan's usage cap), 额度已用完 (allowance used up).
  /allocated quota|使用上限|用量上限|额度已用完/,
]);

/** An account block only the provider can lift: permission, contact support. */
export const ACCOUNT_BLOCK = vocabulary('accountBlock', () => [
  // OpenAI "Your organization org-xxx has been disabled."; Anthropic/Mistral/Groq "account has
  // been suspended|deactivated|disabled"; codes account_deactivated, organization_restricted.
  /(?:organi[sz]ation|account|workspace)(?: [\w-]+)?(?=) (?:has been|is|was)(?=) (?:disabled|suspended|deactivated|banned|blocked|terminated)/,
  /account_deactivated|organization_restricted|account_suspended|consumer_suspended/,
  // Gemini 403 "Consumer 'api_key:…' has been suspended."
  /consumer .{0,120} has been suspended/,
  // Groq "Organization is restricted, reach out to support"; "please contact support".
  // Not "contact sales ... for a rate limit increase" (Anthropic 429): sales sell more, support unblocks.
  /contact (?:our )?support|reach out to (?:our )?support/,
  // one-api 用户已被封禁 (user banned); Kimi Code "Access terminated. Review our Community Guidelines" (the words:
  // Kimi sends the same access_terminated_error type for a client outside its coding plan's list, a
  // restriction, not a ban); Cloudflare 3023 "Service unavailable for account".
  /已被封禁|access terminated(?!\w)|unavailable for (?:this |your )?account/,
]);

/**
 * The credential itself was rejected although the status is 403: AWS answers a bad access key,
 * a bad signature or an expired session token with 403.
 */
export const CREDENTIAL_REJECTED = vocabulary('credentialRejected', () => [
  /unrecognizedclientexception|security token included in the request is (?:invalid|expired)/,
  /invalidsignatureexception|signature we calculated does not match|expiredtokenexception/,
]);

/**
 * The key was rejected. AWS's words for a rejected key or signature are CREDENTIAL_REJECTED's, whose
 * rule comes first at every status.
 */
export const AUTH = vocabulary('auth', () => [
  // OpenAI/Groq invalid_api_key "Incorrect API key provided"; Anthropic "invalid x-api-key",
  // authentication_error; Gemini "API key not valid" (API_KEY_INVALID), "API key expired".
  // Azure "Access denied due to invalid subscription key or wrong API endpoint" (401).
  /invalid_api_key|(?:incorrect|invalid|missing|expired)(?=) (?:x-)?(?=)api[ _-]?key|api[ _-]?key (?:not valid|is invalid|expired|is missing)|api_key_invalid|invalid subscription key/,
  /authentication_error|authentication failed|invalid authentication|unauthenticated|unauthorized/,
  // OpenRouter "No auth credentials found"; a router with no key for the upstream (9router "No credentials
  // for provider: github").
  // Hugging Face "Authorization header is correct, but the token seems invalid" (on a 400).
  /invalid (?:bearer )?token|token (?:is |seems |appears )?(?=)(?:to be )?(?=)(?:invalid|expired)|no (?:auth )?credentials (?:found|for)(?!\w)/,
  // GitHub's API "401 Bad credentials", also quoted by a tool server that calls it (GitHub's MCP server).
  /(?<!\w)bad credentials(?!\w)/,
]);

/** The key is valid but not allowed. */
export const PERMISSION = vocabulary('permission', () => [
  /permission_denied|permission denied|permission_error|insufficient permissions/,
  // Bedrock AccessDeniedException "You don't have access to the model with the specified model ID."
  /accessdeniedexception|access denied|(?:don't|do not|does not) have access/,
  // OpenAI "You are not allowed to sample from this model".
  /not allowed to|not authorized to/,
  // Bedrock (through TrueFoundry) "You have not filled out the required use-case form for this model
  // ... before requesting access."; "access to this model has not been granted".
  /use-case form|before requesting access|access (?:has not been|is not|was not) (?:yet )?granted/,
  // Region blocks: OpenAI unsupported_country_region_territory, Gemini "User location is not supported".
  /unsupported_country_region_territory|not available in your (?:country|region|location)|location is not supported/,
  // OpenAI "Your organization must be verified to stream this model" (also through relays).
  /must be verified to/,
]);

/**
 * The model, deployment or endpoint does not exist or cannot serve this request: model_not_found.
 * Availability, never capacity ("the model is overloaded" is the capacity vocabulary).
 */
export const AVAILABILITY = vocabulary('availability', () => [
  // OpenAI/Groq code model_not_found; Anthropic not_found_error "model: x"; LiteLLM NotFoundError.
  /model_not_found|(?:invalid|unknown|no such|unsupported) model|model not found|not_found_error.{0,40}model|(?<!\w)model(?!\w).{0,80}not_found_error/,
  // Bedrock ResourceNotFoundException "Could not resolve the foundation model from the provided model identifier."
  /(?:could not|cannot|unable to)(?=) (?:resolve|find) the (?:foundation |requested )?model/,
  // A key or plan that may use only some models: chatanywhere 403 "The free account is limited to use gpt-3.5-turbo,
  // gpt-4 and embeddings" (免费API限制使用 … 模型).
  /(?:account|key|plan|tier) is limited to (?:use|using) |限制使用.{0,60}模型/,
  // "The model `x` does not exist or you do not have access to it" (OpenAI), "models/x is not found
  // for API version v1beta" (Gemini), "model x is not supported", "has been decommissioned" (Groq),
  // "is deprecated", "has reached the end of its life" (Bedrock), "is no longer available".
  // A word boundary before "model": "InvokeModel operation: Malformed input request: ... required key [prompt] not
  // found" (Bedrock through LiteLLM) names an operation, not a model.
  // Not IAM's hedge on a denial, "Permission 'aiplatform.endpoints.predict' denied on resource
  // '…/models/x' (or it may not exist)": the denial is what it states (Vertex 403 PERMISSION_DENIED).
  /(?<!\w)models?(?!\w).{0,80}(?:does not exist|(?<!may )not exist|not found|is not supported|not supported (?:for|by|on|in)|is invalid|decommissioned|deprecated|retired|no longer (?:available|supported)|end of (?:its )?life|marked by provider as legacy)/,
  // Bedrock "The provided model identifier is invalid."; "model identifier".
  /provided model identifier is invalid/,
  // Bedrock 400 "Invocation of model ID x with on-demand throughput isn't supported. Retry your
  // request with the ID or ARN of an inference profile"; "provisioned throughput".
  /on-demand throughput|inference profile/,
  // Together 400 model_not_available "Unable to access non-serverless model x. Please visit ... to
  // create and start a new dedicated endpoint for the model."; Azure 400 OperationNotSupported "The
  // completion operation does not work with the specified model, gpt-35-turbo. Please choose
  // different model".
  /model_not_available|non-serverless model|dedicated endpoint for the model|does not work with (?:the )?(?:specified |this )?model|choose (?:a )?different model/,
  // Azure OpenAI DeploymentNotFound "The API deployment for this resource does not exist".
  /deploymentnotfound|deployment.{0,60}(?:does not exist|not found|could not be found)|no deployment/,
  // A tier or plan that does not include the model: "model is not available on your plan",
  // "your tier does not have access to this model", "not available on the free tier".
  /models?(?!\w).{0,60}not (?:available|included|enabled|accessible)(?=) (?:on|in|for|with)(?=) (?:your|the|this)/,
  /(?:tier|plan|subscription)(?=) (?:does not|doesn't|do not)(?=) (?:include|support|have access to|allow)/,
  // one-api/new-api 当前分组 default 下对于模型 gpt-5 无可用渠道 (no channel serves the model), Zhipu 1211 模型不存在;
  // OpenRouter "claude-sonnet-4-6 is not a valid model ID"; Ollama "gemma3:4b does not support tools" (a model
  // whose template has no tools); NVIDIA "Function '…': Not found for account '…'" (a removed catalog model); Ark
  // ModelNotOpen "has not activated the model" and InvalidEndpoint.NotFound (Ark's endpoint is a deployed model).
  /无可用渠道|模型不存在|not a valid model id|does not support tools|function .{0,60}not found for account|has not activated the model|invalidendpoint(?:ormodel)?\.notfound/,
  // A model this server cannot load or has turned off: Ollama 500 "model requires more system memory (5.0 GiB)
  // than is available (3.9 GiB)", LM Studio 400 "Failed to load model \"gpt-oss-20b\". Error: Error loading model.",
  // Lemonade 500 "Failed to load model '…': llama-server failed to start", LocalAI 500 "could not load model: rpc
  // error: …", SiliconFlow "Model disabled." (docs/contributing/contracts.md: a retry asks the same server to load
  // the same model; another model is the fix).
  /(?:failed to|could not|cannot|unable to) load (?:the )?model|error loading model|model requires more (?:system |gpu )?memory|(?<!\w)model (?:is )?disabled(?!\w)/,
  // A request this model does not serve: Vertex INVALID_ARGUMENT "The request is not supported by this model."
  /(?:request|operation|task) is not supported by (?:this|the) model/,
]);

/**
 * A router that has no endpoint or provider for this model and request: model availability, even on
 * a 503 (OpenRouter 404 "No endpoints found that support tool use", 503 "There is no available model
 * provider that meets your routing requirements"; "no allowed providers are available for the
 * selected model").
 */
export const NO_ROUTE = vocabulary('noRoute', () => [
  /no endpoints? (?:found|available)|no (?:allowed )?(?=)providers? (?:are |is )?(?=)available|no available (?:model )?provider/,
]);

/** The provider refused the content. */
export const CONTENT_POLICY = vocabulary('contentPolicy', () => [
  // Azure OpenAI 400 content_filter "content management policy", ResponsibleAIPolicyViolation.
  /content_filter|content management policy|content_policy_violation|responsibleaipolicyviolation/,
  // Gemini block reasons SAFETY/PROHIBITED_CONTENT/BLOCKLIST/SPII.
  /safety (?:system|filter|settings|reasons)|blocked.{0,40}safety|prohibited_content|blocklist|(?<!\w)spii(?!\w)/,
  // OpenAI, Mistral moderation; OpenRouter 403 "Input was flagged"; Anthropic refusal.
  // Cohere 498 "blocked input: ... a potential violation of our Usage Guidelines".
  /violat(?:es|ed|ing|ion of)(?=) (?:our|the) (?:usage|content) (?:polic|guideline)|flagged (?:as|by|for)|moderation|(?<!\w)refusal(?!\w)/,
  /image_generation_user_error/,
  // DashScope data_inspection_failed "Input data may contain inappropriate content"; DeepSeek "Content Exists
  // Risk"; new-api sensitive_words_detected; Zhipu 1301 不安全或敏感内容; Kimi "considered high risk".
  /data_inspection_failed|inappropriate content|content exists risk|sensitive words|敏感内容|considered high risk/,
]);

/** The provider cannot take this media. */
export const UNSUPPORTED_MEDIA = vocabulary('unsupportedMedia', () => [
  /unsupported (?:media|mime|image|file|audio|content) (?:type|format)/,
  // Anthropic "Image format image/bmp is not supported".
  /(?:image|file|audio|mime) (?:type|format) .{0,40}(?:not supported|unsupported|is invalid)/,
  /could not process image|invalid_image_format|unsupported_file/,
  // Bedrock Converse "The provided image does not match the specified image format."
  /does not match the specified image format/,
  // Groq (Whisper) 400 "file must be one of the following types: [flac mp3 ...]".
  /file must be one of the following types/,
  // vLLM "facebook/opt-125m is not a multimodal model" (an image sent to a text-only model).
  /is not a multimodal model/,
  // Ark (Anthropic-compatible) "The parameter `messages.content.type` ... invalid value: `document`, supported
  // values are: `text`, `thinking`, `image` ...": a content block of a kind the endpoint does not take.
  /content\.type(?!\w).{0,80}(?:invalid value|not supported|unsupported)/,
]);

/** The model is being loaded: overloaded even on a 429 (Bedrock ModelNotReadyException). */
export const WARMING_UP = vocabulary('warmingUp', () => [
  /modelnotreadyexception|model is not ready|currently loading|is loading|warming up|cold start/,
]);

/** The provider is busy: capacity, retry soon or elsewhere. */
export const CAPACITY = vocabulary('capacity', () => [
  // Anthropic 529 overloaded_error; Gemini 503 "The model is overloaded"; OpenAI legacy "engine is
  // currently overloaded"; DeepSeek "Server is busy"; Groq 498 capacity_exceeded; "high demand".
  // Cerebras 429 queue_exceeded "We're experiencing high traffic right now!"; Azure "peak load".
  // Not "your capacity": Google's Cloud Code "You have exhausted your capacity on this model. Your quota will
  // reset after 2h1m1s" is the account's allowance (its wait decides), not the provider being busy.
  // Not "total capacity": a size ("GPU 0; 22.20 GiB total capacity" in an out-of-memory error), not a state.
  /overloaded|(?<!\w)busy(?!\w)|(?<!your |total )capacity|high (?:demand|traffic|load)|heavy load|under load|peak load|queue_exceeded/,
  // Gemini status UNAVAILABLE, Bedrock ServiceUnavailableException. Not a gRPC status quoted in a Go error
  // ("rpc error: code = Unavailable desc = error reading from server: EOF": LocalAI's backend process died,
  // the server failed, it is not busy).
  /(?<!code = )(?<!\w)unavailable(?!\w)|serviceunavailable/,
  // Zhipu 1305 该模型当前访问量过大 (too much traffic); Cloudflare 3040 "No more data centers to forward the request to".
  /访问量过大|no more data cent(?:er|re)s/,
  // A server's own concurrency cap full: its workers or slots are all taken (an upstream behind OpenRouter
  // "Worker local total request limit reached (33/32)"; a router's "No available workers"). The server's
  // limit, not the account's: a request-per-key limit names the key, a window or a plan.
  /\b(?:workers?|replicas?|slots?)\b[^.]{0,40}\b(?:request|concurrency) limit reached|no (?:free |available |idle )(?:workers?|slots?|replicas?)\b/,
]);

/** The account or key is being throttled for a short while. */
export const THROTTLE = vocabulary('throttle', () => [
  // OpenAI rate_limit_exceeded, Anthropic rate_limit_error, "Rate limit reached", Mistral.
  /rate[ _-]?limit/,
  // Bedrock ThrottlingException, 429 reason phrase, Gemini RESOURCE_EXHAUSTED.
  /throttlingexception|throttled|too many requests|resource_exhausted|resource has been exhausted/,
  // Bedrock's throttlingException frame of ConverseStream, whose type @ai-sdk/amazon-bedrock drops.
  /please wait before trying again/,
]);

/** The provider failed on its side. */
export const SERVER_FAULT = vocabulary('serverFault', () => [
  /server_error|internal server error|internal error|internalserverexception|(?<!\w)internal(?!\w)|api_error/,
  /modelstreamerrorexception|modelerrorexception/,
  /bad gateway|gateway timeout|upstream(?: provider| server| service)?(?=) (?:error|server error|connect|timeout|timed out|failed|unavailable)/,
  // OpenAI "The server had an error while processing your request", also in a stream chunk's error.
  /server had an error/,
  // A local server's model runner failing (Ollama "an error was encountered while running the model:
  // unexpected EOF", "llama runner process has terminated: ..."), also as a line of a stream.
  /error was encountered while (?:running|loading) the model|runner process has terminated/,
  // text-generation-inference's words for a generation its shards failed ("Request failed during
  // generation: Server error: CUDA out of memory ..."), as a status or as a stream's error event.
  /request failed during generation|cuda out of memory|cuda error(?!\w)/,
]);

/** The request was malformed. */
export const INVALID_REQUEST = vocabulary('invalidRequest', () => [
  /invalid_request_error|invalid_argument|validationexception|invalid request/,
  // A tool server's answer to a call it cannot take (MCP servers' isError results: "Unknown tool: x",
  // "No arguments provided", "Invalid arguments for <tool>").
  /(?<!\w)(?:invalid arguments?|no arguments provided|unknown tool)(?!\w)/,
  // TGI's stream error line "Input validation error: cannot compile regex from schema ..." (error_type validation).
  /(?<!\w)validation error(?!\w)|validation_error/,
  // Groq: the model's output failed the requested format.
  /tool_use_failed|json_validate_failed/,
]);

/**
 * Words that say the request itself is wrong (a parameter, a field, a flag the server needs), read on a 5xx
 * too: some servers answer a request they refuse with a 500. llama.cpp "tools param requires --jinja flag",
 * "Unsupported param: tools"; llama-cpp-python a pydantic list "'type': 'int_parsing' ... 'msg': 'Input should
 * be a valid integer'"; vLLM "'type': 'extra_forbidden' ... 'Extra inputs are not permitted'".
 */
export const REQUEST_SHAPE = vocabulary('requestShape', () => [
  /unsupported param(?:eter)?s?(?!\w)|param(?:eter)? requires --[\w-]+|requires --[\w-]+ (?:flag|option)/,
  /'type': '(?:\w+_parsing|missing|extra_forbidden|\w+_type)'|input should be a valid|extra inputs are not permitted/,
  // zod's issue list, as a TypeScript server answers a request its schema rejects (an MCP server's
  // -32603 '[{"code": "invalid_type", "expected": "object", "received": "string", ...}]').
  /"code": ?"(?:invalid_type|invalid_union|invalid_enum_value|invalid_literal|unrecognized_keys|too_small|too_big|invalid_string|invalid_format|invalid_value)"/,
]);

/**
 * A gateway or relay saying that the provider behind it failed, in a 4xx of its own: Cloudflare AI Gateway
 * 2005 "Failed to get response from provider" (a 400); an OpenAI Responses server_error event "An error occurred
 * while processing your request. You can retry your request" relayed by a proxy inside a 400.
 */
export const UPSTREAM_FAILED = vocabulary('upstreamFailed', () => [
  /failed to get (?:a )?response from (?:the )?(?:upstream|provider)|you can retry your request|server had an error/,
]);

/** Structured quota ids with a long window (the tier never counts). */
export const QUOTA_ID_LONG = vocabulary('quotaIdLong', () => [
  /per[_-]?(?:day|week|month|year)|daily|monthly/,
]);

/** Structured quota ids with a short window (per second/minute). */
export const QUOTA_ID_SHORT = vocabulary('quotaIdShort', () => [/per[_-]?(?:second|minute)/]);
