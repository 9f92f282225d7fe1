/**
 * The most UTF-8 bytes one token stands for, once a run of whitespace and a run of one repeated
 * character are counted as one character (see `minimumTokenCount`). OpenAI's byte-pair tokenizers
 * read prose, code, JSON and CJK text at 3 to 4.5 such bytes a token; tokenizers that need more
 * tokens for the same text read fewer. Twice the densest keeps a prompt that might fit from being
 * judged too long, including by the providers' tokenizers that are not published.
 */
const MAX_BYTES_PER_TOKEN = 8;

/**
 * A lower bound of the tokens `text` takes as a model's input, with no tokenizer: its UTF-8 bytes,
 * a run of whitespace and a run of one repeated character (`----`, `====`) counted once, over the
 * most bytes a token of any tokenizer in use stands for. Conservative by design: a prompt it puts
 * above a window cannot fit that window, and a prompt just above a window may be counted below it
 * (and is then sent). Counts text only: give it the prompt's text, not an image's or a file's
 * base64 (which models count by their size, not their bytes). Any value that is not a string counts 0.
 */
export function minimumTokenCount(text: string | readonly string[]): number {
  const parts: readonly unknown[] = Array.isArray(text) ? text : [text];
  let bytes = 0;
  for (const part of parts) if (typeof part === 'string') bytes += collapsedUtf8Length(part);
  return Math.floor(bytes / MAX_BYTES_PER_TOKEN);
}

/** Tab, line feed, vertical tab, form feed, carriage return, space. */
const isAsciiWhitespace = (unit: number): boolean => unit === 32 || (unit >= 9 && unit <= 13);

/**
 * The UTF-8 length of `text` with each run of ASCII whitespace and each run of one repeated UTF-16
 * unit counted once. One pass over the units, with no copy of the text: it runs on every call of
 * `faultlineFallback`, whose prompts can be megabytes (Buffer is Node's only, and a regular
 * expression's replace would copy the prompt twice).
 */
function collapsedUtf8Length(text: string): number {
  let bytes = 0;
  let previous = -1;
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    const repeated = unit === previous || (isAsciiWhitespace(unit) && isAsciiWhitespace(previous));
    previous = unit;
    if (repeated) continue;
    // A surrogate pair (4 bytes) is two units of 2; a lone one (sent as U+FFFD, 3) counts 2, under.
    bytes += unit < 0x80 ? 1 : unit < 0x800 ? 2 : unit >= 0xd800 && unit <= 0xdfff ? 2 : 3;
  }
  return bytes;
}
