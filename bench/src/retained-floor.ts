// The floor: the bytes of the facts an error and its report must hold, as the smallest plain data
// that holds them, built beside each held pair and measured the same way. Per error:
// - the report: one plain object with its own keys, plus its `providerMetadata` when that holds a
//   per-call fact (a request id; otherwise it is one shared object);
// - the error's `metadata`: one plain object with its own data properties;
// - the error itself: an Error holding its cause and message (no stack, as the FaultlineError)
//   with the fields it must show (errorType, classification, metadata, provider, model, ...).
// Each object is built by an object literal (or a class) generated for exactly its members, so V8
// gives it exactly their slots in-object, and shares every value with the real ones (strings, the
// classification, the SDK error): only the objects themselves are counted. Generated with
// `new Function` (bench code only: the one way to get a literal for keys known at run time).
// Anything faultline retains above the floor is its own overhead; a floor above the SDK error means
// no design that keeps these facts can meet the goal.
const literals: Map<string, (values: readonly unknown[]) => Record<string, unknown>> = new Map();

/** A plain object with exactly `source`'s own enumerable data members (same order, same values). */
function exactCopy(source: object): Record<string, unknown> {
  const keys = Object.keys(source);
  const id = JSON.stringify(keys);
  let literal = literals.get(id);
  if (literal === undefined) {
    const members = keys.map((key, index) => `${JSON.stringify(key)}: values[${index}]`).join(', ');
    literal = new Function('values', `return { ${members} };`) as (
      values: readonly unknown[],
    ) => Record<string, unknown>;
    literals.set(id, literal);
  }
  return literal(keys.map((key) => (source as Record<string, unknown>)[key]));
}

const errorClasses: Map<string, new (message: unknown, cause: unknown, values: readonly unknown[]) => Error> =
  new Map();

/** An Error holding `cause` and `message` (no stack) with exactly the given fields, in-object. */
function exactError(message: unknown, cause: unknown, fields: Record<string, unknown>): Error {
  const keys = Object.keys(fields).filter((key) => /^[A-Za-z_$][\w$]*$/.test(key));
  const id = JSON.stringify(keys);
  let ErrorClass = errorClasses.get(id);
  if (ErrorClass === undefined) {
    const body = keys.map((key, index) => `this.${key} = values[${index}];`).join(' ');
    ErrorClass = new Function(
      `return class extends Error { constructor(message, cause, values) { super(message, { cause }); ${body} } };`,
    )();
    errorClasses.set(id, ErrorClass!);
  }
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return new ErrorClass!(
      message,
      cause,
      keys.map((key) => fields[key]),
    );
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** The floor's error and report for one held pair, linked as the real ones are (held the same way). */
export function floorOf(error: Record<string, unknown>, report: Record<string, unknown>): [unknown, unknown] {
  const floorReport = exactCopy(report);
  const providerMetadata = report.providerMetadata as Record<string, unknown>;
  if (providerMetadata.requestId !== undefined) floorReport.providerMetadata = exactCopy(providerMetadata);
  const fields: Record<string, unknown> = {};
  for (const key of Object.keys(error)) fields[key] = error[key];
  // Its metadata with its non-enumerable raw body when that is a data member (a slot of its own).
  const metadata = error.metadata as Record<string, unknown>;
  const raw = Object.getOwnPropertyDescriptor(metadata, 'rawBody');
  const rawIsData = raw !== undefined && 'value' in raw;
  const floorMetadata = exactCopy(rawIsData ? { ...metadata, rawBody: raw.value } : metadata);
  // Made non-enumerable in its own slot.
  if (rawIsData) Object.defineProperty(floorMetadata, 'rawBody', { enumerable: false });
  fields.metadata = floorMetadata;
  return [exactError(error.message, error.cause, fields), floorReport];
}
