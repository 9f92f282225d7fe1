/**
 * Secret scrubbing for every string that leaves faultline in a serialised form: error messages,
 * report fields, formatter output. Patterns are linear (no nested quantifiers), so a 50 MB
 * message costs one pass over its first `SCRUB_WINDOW` characters, never a backtracking storm.
 */

/** The longest message a report, panel or wire form carries. */
export const MAX_MESSAGE_LENGTH = 2000;

/** Text past this many characters is dropped before scrubbing (it could never be shown anyway). */
const SCRUB_WINDOW = 16 * 1024;

const REDACTED = '[redacted]';

interface SecretPattern {
  readonly pattern: RegExp;
  /** Replacement; `$1` keeps a non-secret prefix such as the header name. */
  readonly replacement: string;
}

const SECRET_PATTERNS: readonly SecretPattern[] = [
  // Header and key=value forms first, so the name stays readable and the value goes.
  {
    pattern: /\b(authorization["']?\s*[:=]\s*["']?)(?:bearer|basic|token)?\s*[^\s"',;}]+/gi,
    replacement: `$1${REDACTED}`,
  },
  { pattern: /\b(bearer\s+)[A-Za-z0-9._~+/=-]+/gi, replacement: `$1${REDACTED}` },
  {
    pattern:
      /\b((?:x-api-key|x-goog-api-key|api-key|api[_-]?key|apikey|access[_-]?token|refresh[_-]?token|client[_-]?secret|secret[_-]?key|password|aws[_-]?secret[_-]?access[_-]?key|secret[_-]?access[_-]?key|aws[_-]?session[_-]?token)["']?\s*[:=]\s*["']?)[^\s"'&,;}]+/gi,
    replacement: `$1${REDACTED}`,
  },
  // A provider quoting the key it was sent: "Incorrect API key provided: <key>" (keys of no known format).
  {
    pattern: /\b(api[ _-]?key(?:\s+provided)?\s*:\s*)[A-Za-z0-9_*.~+/=-]{12,}/gi,
    replacement: `$1${REDACTED}`,
  },
  // Query strings: ?key=..., &key=..., ?token=..., &sig=...
  {
    pattern:
      /([?&](?:key|api[_-]?key|apikey|token|access_token|sig|signature|x-amz-signature|x-amz-credential)=)[^&\s#"']+/gi,
    replacement: `$1${REDACTED}`,
  },
  // Credentials in a URL's userinfo: https://user:password@host
  { pattern: /(\b[a-z][a-z0-9+.-]*:\/\/)[^/\s:@]+:[^/\s@]+@/gi, replacement: `$1${REDACTED}@` },
  // Provider key formats, wherever they appear.
  { pattern: /(?<![A-Za-z0-9])sk-[A-Za-z0-9_-]{8,}/g, replacement: REDACTED }, // OpenAI sk-, sk-proj-, Anthropic sk-ant-, OpenRouter sk-or-
  { pattern: /(?<![A-Za-z0-9])gsk_[A-Za-z0-9]{8,}/g, replacement: REDACTED }, // Groq
  { pattern: /(?<![A-Za-z0-9])AIza[0-9A-Za-z_-]{20,}/g, replacement: REDACTED }, // Google
  { pattern: /(?<![A-Za-z0-9])(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}(?![0-9A-Z])/g, replacement: REDACTED }, // AWS access key ids
  { pattern: /(?<![A-Za-z0-9])xai-[A-Za-z0-9]{16,}/g, replacement: REDACTED }, // xAI
  { pattern: /(?<![A-Za-z0-9])hf_[A-Za-z0-9]{16,}/g, replacement: REDACTED }, // Hugging Face
  {
    pattern: /(?<![A-Za-z0-9])eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/g,
    replacement: REDACTED,
  }, // JWTs
];

// Every secret pattern above needs one of these words to match (case-insensitively a superset):
// one pass that finds none proves the text clean, so the 13 passes run only on text that could
// hold a secret. Most provider messages hold none, and the same message is read several times on
// its way into a report. Compiled on first use, not at import.
let secretTriggers: RegExp | undefined;

/** Whether `text` could hold a secret some pattern removes (false means: certainly clean). */
function mayHoldSecret(text: string): boolean {
  secretTriggers ??=
    /(?<![a-z0-9])(?:sk-|gsk_|xai-|hf_|eyj)|aiza|akia|asia|agpa|aida|aroa|bearer|authorization["']?\s*[:=]|api[ _-]?key|secret|password|(?:access|refresh|session)[_-]?token|[?&](?:key|token|sig|signature)=|x-amz|:\/\/[^\s/@]*@/i;
  return secretTriggers.test(text);
}

/** Every pattern, in order: the reference scrubber (the fast path must always agree with it). */
export function scrubSecretsEveryPattern(text: string): string {
  // A removed secret can expose another: `ASIA…` glued to `sk-…` hides the key behind a letter
  // until the AWS id before it is gone. Run again until nothing changes (bounded).
  let result = text;
  for (let pass = 0; pass < 4; pass++) {
    const before = result;
    for (const { pattern, replacement } of SECRET_PATTERNS) {
      result = result.replace(pattern, replacement);
    }
    if (result === before) break;
  }
  return result;
}

// Scrub each distinct string once: on its way into a report the same message is read as the
// error's message, the metadata's, the report's and the rule's evidence, and each read would pay
// the trigger pass over the whole text again. The last strings scrubbed are remembered, keyed
// by the string itself (V8 keeps a string's hash in it: a repeat costs one lookup). A Map and not
// a library: a bounded memo of a pure function, cleared when full; it holds at most
// SCRUBBED_ENTRIES × SCRUBBED_MAX_LENGTH characters whatever the traffic.
const SCRUBBED_ENTRIES = 64;
const SCRUBBED_MAX_LENGTH = 4096;
const scrubbed = new Map<string, string>();

/**
 * Removes API keys, bearer tokens, key headers and key-bearing URL parameters from `text`.
 * Total: any value gives a string (non-strings give an empty string).
 */
export function scrubSecrets(text: unknown): string {
  if (typeof text !== 'string') return '';
  const window = text.length > SCRUB_WINDOW ? text.slice(0, SCRUB_WINDOW) : text;
  if (window.length > SCRUBBED_MAX_LENGTH)
    return mayHoldSecret(window) ? scrubSecretsEveryPattern(window) : window;
  const known = scrubbed.get(window);
  if (known !== undefined) return known;
  const result = mayHoldSecret(window) ? scrubSecretsEveryPattern(window) : window;
  if (scrubbed.size >= SCRUBBED_ENTRIES) scrubbed.clear();
  scrubbed.set(window, result);
  return result;
}

/** Scrubs, then cuts to `maxLength` characters (with an ellipsis when cut). */
export function scrubAndCut(text: unknown, maxLength: number = MAX_MESSAGE_LENGTH): string {
  const scrubbed = scrubSecrets(text);
  if (scrubbed.length <= maxLength) return scrubbed;
  return `${scrubbed.slice(0, Math.max(0, maxLength - 1))}…`;
}

// Identifiers of the account behind a call: fine for the operator's own logs, not for a model or
// the app's clients (DESIGN "What a report says, and to whom"). Each pattern is linear. Compiled on
// first use, not at import: nothing is compiled on the paths that never fail.
let identifierPatterns: readonly SecretPattern[] | undefined;

function identifierPatternList(): readonly SecretPattern[] {
  identifierPatterns ??= [
    // Emails first: their local part could look like anything below.
    { pattern: /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g, replacement: '[email]' },
    // OpenAI organization, project, user and request ids; Stripe-like account ids.
    { pattern: /(?<![A-Za-z0-9])org-[A-Za-z0-9]{6,}/g, replacement: '[organization]' },
    { pattern: /(?<![A-Za-z0-9])proj_[A-Za-z0-9]{6,}/g, replacement: '[project]' },
    { pattern: /(?<![A-Za-z0-9])user-[A-Za-z0-9]{12,}/g, replacement: '[user]' },
    { pattern: /(?<![A-Za-z0-9])(?:acct|acc|account)_[A-Za-z0-9]{6,}/gi, replacement: '[account]' },
    { pattern: /(?<![A-Za-z0-9])req_[A-Za-z0-9]{6,}/g, replacement: '[request-id]' },
    // Google Cloud project paths and named projects/organizations: `projects/my-project-123`.
    {
      pattern: /\b((?:projects|organizations|folders|billingAccounts)\/)[A-Za-z0-9_.:-]+/g,
      replacement: '$1[id]',
    },
    // "project 123456789", "organization my-org", "account 1234" named in words.
    {
      pattern:
        /\b((?:project|organization|organisation|org|account|tenant|subscription)(?:\s+id)?\s*[:=]?\s+[`'"]?)(?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{4,}/gi,
      replacement: '$1[id]',
    },
    // UUIDs (request ids, Anthropic and Azure organization ids).
    {
      pattern:
        /(?<![A-Za-z0-9])[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?![A-Za-z0-9])/gi,
      replacement: '[id]',
    },
    // Long digit runs: AWS account ids (12), Google project numbers. Token counts stay (≤ 9 digits).
    { pattern: /(?<![A-Za-z0-9])\d{10,}(?![A-Za-z0-9])/g, replacement: '[id]' },
    // Long opaque tokens mixing letters and digits (request and trace ids of no known format).
    {
      pattern: /(?<![A-Za-z0-9])(?=[A-Za-z]*\d)(?=\d*[A-Za-z])[A-Za-z0-9]{24,}(?![A-Za-z0-9])/g,
      replacement: '[id]',
    },
  ];
  return identifierPatterns;
}

/**
 * The `scrubbed` disclosure level: `scrubSecrets` plus the identifiers of the account behind the
 * call (organization, project, user and account ids, emails, request ids, UUIDs, long numbers and
 * opaque tokens). The provider's useful words stay ("maximum context length is 16000 tokens").
 */
export function scrubIdentifiers(text: unknown): string {
  let result = scrubSecrets(text);
  for (const { pattern, replacement } of identifierPatternList()) {
    result = result.replace(pattern, replacement);
  }
  return result;
}
