import { crc32 } from 'node:zlib';

// The AWS event-stream framing (application/vnd.amazon.eventstream), which Bedrock's streaming
// answers use, written here rather than taken from @smithy/eventstream-codec: that package
// re-exports @smithy/core, about 8 MB installed, which every install of llm-mock and of the CLI
// (`faultline mock`) would carry for a format of a few dozen lines. The SDK that reads what the
// mock writes is the judge: every Bedrock stream test decodes these frames with
// @aws-sdk/client-bedrock-runtime, and event-stream.test.ts checks both directions against
// @smithy/eventstream-codec.
//
// A message: total length and headers length (big-endian uint32 each), the CRC32 of those 8 bytes,
// the headers, the payload, then the CRC32 of everything before it. A header: its name's length
// (uint8) and name, a type byte, then the value.

/** A decoded AWS event-stream message, with string headers and a UTF-8 payload. */
export interface DecodedEventStreamMessage {
  headers: Record<string, string | number | boolean>;
  payload: string;
}

const PRELUDE_BYTES = 12;
const TRAILER_BYTES = 4;
const STRING_HEADER = 7;

const textEncoder = new TextEncoder();
const textDecoder = new TextDecoder();

/** Encodes one AWS event-stream message; every header is sent as a string header. */
export function encodeEventStreamMessage(message: {
  headers: Record<string, string>;
  payload: string;
}): Uint8Array {
  const headerParts: Uint8Array[] = [];
  for (const [name, value] of Object.entries(message.headers)) {
    const nameBytes = textEncoder.encode(name);
    const valueBytes = textEncoder.encode(value);
    if (nameBytes.length > 0xff) throw new RangeError(`event-stream header name over 255 bytes: ${name}`);
    if (valueBytes.length > 0xffff) throw new RangeError(`event-stream header ${name} over 65535 bytes`);
    const header = new Uint8Array(1 + nameBytes.length + 1 + 2 + valueBytes.length);
    const view = new DataView(header.buffer);
    header[0] = nameBytes.length;
    header.set(nameBytes, 1);
    header[1 + nameBytes.length] = STRING_HEADER;
    view.setUint16(2 + nameBytes.length, valueBytes.length);
    header.set(valueBytes, 4 + nameBytes.length);
    headerParts.push(header);
  }
  const headersLength = headerParts.reduce((sum, part) => sum + part.length, 0);
  const payload = textEncoder.encode(message.payload);
  const total = PRELUDE_BYTES + headersLength + payload.length + TRAILER_BYTES;
  const frame = new Uint8Array(total);
  const view = new DataView(frame.buffer);
  view.setUint32(0, total);
  view.setUint32(4, headersLength);
  view.setUint32(8, crc32(frame.subarray(0, 8)));
  let offset = PRELUDE_BYTES;
  for (const part of headerParts) {
    frame.set(part, offset);
    offset += part.length;
  }
  frame.set(payload, offset);
  view.setUint32(total - TRAILER_BYTES, crc32(frame.subarray(0, total - TRAILER_BYTES)));
  return frame;
}

/**
 * Splits a byte buffer into AWS event-stream frames and decodes each, checking both CRCs (a frame
 * that fails one throws). A trailing partial frame is returned as `rest`.
 */
export function decodeEventStreamMessages(bytes: Uint8Array): {
  messages: DecodedEventStreamMessage[];
  rest: Uint8Array;
} {
  const messages: DecodedEventStreamMessage[] = [];
  let offset = 0;
  while (offset + 4 <= bytes.length) {
    const length = new DataView(bytes.buffer, bytes.byteOffset + offset, 4).getUint32(0);
    if (length < PRELUDE_BYTES + TRAILER_BYTES || offset + length > bytes.length) break;
    messages.push(decodeFrame(bytes.subarray(offset, offset + length)));
    offset += length;
  }
  return { messages, rest: bytes.subarray(offset) };
}

function decodeFrame(frame: Uint8Array): DecodedEventStreamMessage {
  const view = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
  const headersLength = view.getUint32(4);
  if (view.getUint32(8) !== crc32(frame.subarray(0, 8)))
    throw new Error('event-stream frame: the prelude CRC does not match');
  if (view.getUint32(frame.length - TRAILER_BYTES) !== crc32(frame.subarray(0, frame.length - TRAILER_BYTES)))
    throw new Error('event-stream frame: the message CRC does not match');
  const headersEnd = PRELUDE_BYTES + headersLength;
  if (headersEnd > frame.length - TRAILER_BYTES)
    throw new Error('event-stream frame: its headers run past its end');
  const headers: Record<string, string | number | boolean> = {};
  let offset = PRELUDE_BYTES;
  while (offset < headersEnd) {
    const nameLength = view.getUint8(offset);
    const name = textDecoder.decode(frame.subarray(offset + 1, offset + 1 + nameLength));
    offset += 1 + nameLength;
    const type = view.getUint8(offset);
    offset += 1;
    switch (type) {
      case 0:
      case 1:
        headers[name] = type === 0;
        break;
      case 2:
        headers[name] = view.getInt8(offset);
        offset += 1;
        break;
      case 3:
        headers[name] = view.getInt16(offset);
        offset += 2;
        break;
      case 4:
        headers[name] = view.getInt32(offset);
        offset += 4;
        break;
      case 5:
      case 8:
        // a long, or a timestamp in milliseconds: both within a double's exact range in practice
        headers[name] = Number(view.getBigInt64(offset));
        offset += 8;
        break;
      case 6:
      case 7: {
        const valueLength = view.getUint16(offset);
        const value = frame.subarray(offset + 2, offset + 2 + valueLength);
        headers[name] =
          type === STRING_HEADER ? textDecoder.decode(value) : Buffer.from(value).toString('base64');
        offset += 2 + valueLength;
        break;
      }
      case 9:
        headers[name] = Buffer.from(frame.subarray(offset, offset + 16)).toString('hex');
        offset += 16;
        break;
      default:
        throw new Error(`event-stream frame: header ${name} has an unknown type ${type}`);
    }
  }
  return { headers, payload: textDecoder.decode(frame.subarray(headersEnd, frame.length - TRAILER_BYTES)) };
}
