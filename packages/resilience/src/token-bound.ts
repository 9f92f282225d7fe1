/**
 * The most UTF-8 bytes one token stands for, once whitespace runs and runs of one repeated
 * character are counted as one character (see `minimumTokenCount`). OpenAI's byte-pair tokenizers
 * read prose, code, JSON and CJK text at 3 to 4.5 such bytes a token; tokenizers that need more
 * tokens for the same text read fewer. Twice the densest keeps a prompt that might fit from being
 * judged too long, including by the providers' tokenizers that are not published.
 */
const MAX_BYTES_PER_TOKEN = 8;

/** Whitespace runs, then runs of one character repeated (`----`, `====`): each is at least one token. */
const WHITESPACE_RUN = /\s+/g;
const REPEATED_RUN = /(.)\1{3,}/gsu;

/**
 * A lower bound of the tokens `text` takes as a model's input, with no tokenizer: its UTF-8 bytes,
 * whitespace runs and runs of one repeated character counted once, over the most bytes a token of
 * any tokenizer in use stands for. Conservative by design: a prompt it puts above a window cannot
 * fit that window, and a prompt just above a window may be counted below it (and is then sent).
 * Counts text only: give it the prompt's text, not an image's or a file's base64 (which models
 * count by their size, not their bytes). Any value that is not a string counts 0.
 */
export function minimumTokenCount(text: string | readonly string[]): number {
  const parts: readonly unknown[] = Array.isArray(text) ? text : [text];
  let bytes = 0;
  for (const part of parts) {
    if (typeof part !== 'string' || part.length === 0) continue;
    bytes += utf8Length(part.replace(WHITESPACE_RUN, ' ').replace(REPEATED_RUN, '$1'));
  }
  return Math.floor(bytes / MAX_BYTES_PER_TOKEN);
}

/**
 * UTF-8 length of a string, counted from its UTF-16 units: Buffer is Node's only, and a
 * TextEncoder would copy the whole prompt to measure it.
 */
function utf8Length(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    // A surrogate pair (4 bytes) is two units of 2; a lone one (sent as U+FFFD, 3) counts 2, under.
    bytes += unit < 0x80 ? 1 : unit < 0x800 ? 2 : unit >= 0xd800 && unit <= 0xdfff ? 2 : 3;
  }
  return bytes;
}
