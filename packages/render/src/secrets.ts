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

/**
 * Removes API keys, bearer tokens, key headers and key-bearing URL parameters from `text`.
 * Total: any value gives a string (non-strings give an empty string).
 */
export function scrubSecrets(text: unknown): string {
  if (typeof text !== 'string') return '';
  let result = text.length > SCRUB_WINDOW ? text.slice(0, SCRUB_WINDOW) : text;
  for (const { pattern, replacement } of SECRET_PATTERNS) {
    result = result.replace(pattern, replacement);
  }
  return result;
}

/** Scrubs, then cuts to `maxLength` characters (with an ellipsis when cut). */
export function scrubAndCut(text: unknown, maxLength: number = MAX_MESSAGE_LENGTH): string {
  const scrubbed = scrubSecrets(text);
  if (scrubbed.length <= maxLength) return scrubbed;
  return `${scrubbed.slice(0, Math.max(0, maxLength - 1))}…`;
}
