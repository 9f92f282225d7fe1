import { PROMPT } from '@faultline/scenario-driver';

/**
 * The canary credentials scenario-driver's `callProvider` sends (one per provider's key format),
 * and the prompt it sends. None of them may appear in anything faultline writes.
 */
export const CANARY_KEYS = {
  openai: 'sk-proj-faultlineCanary0000000000000000000000',
  anthropic: 'sk-ant-api03-faultlineCanary000000000000000000',
  google: 'AIzaSyFaultlineCanary0000000000000000000',
  groq: 'gsk_faultlineCanary0000000000000000000000000000',
  mistral: 'faultlineCanaryMistralKey000000000',
  awsAccessKeyId: 'AKIAIOSFODNN7EXAMPLE',
  awsSecretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
} as const;

export const CANARY_PROMPT = PROMPT;

/** What must never be found, with a fragment of each (a key cut in half still leaks). */
export const FORBIDDEN_FRAGMENTS: readonly string[] = [
  'faultlineCanary',
  'FaultlineCanary',
  'IOSFODNN7',
  'K7MDENG',
  'bPxRfiCY',
  // The prompt (and a distinctive fragment of it).
  PROMPT,
  'demo prompt',
];

/** The fragments found in `text`. */
export function leaksIn(text: string): string[] {
  return FORBIDDEN_FRAGMENTS.filter((fragment) => text.includes(fragment));
}
