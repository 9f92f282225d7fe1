// Memory (issue 17: a FaultlineError and its report retain no more than the SDK error). An object
// that starts as `{}` and is given its members one by one, as a copy of keys known only at run
// time must be, holds four of them in the object and the rest in a separate, over-allocated store:
// a 9-member metadata copy took 120 B where one object literal of the same members takes 96. An
// object built by `new` from a function gets its room from the members its first instances were
// given (V8's slack tracking); with one such function per member count, each instance has exactly
// its members in the object.
//
// The instances are plain objects: their prototype is Object.prototype (so `constructor` is
// `Object`), and `Object.keys`, `JSON.stringify`, spread, `structuredClone` and `util.inspect` see
// them as they see `{}` with the same members. Written here rather than taken from a library: it is
// a property of V8's object layout, not a data structure.

type PlainRecordMaker = new () => Record<string, unknown>;

/** Past this many members, `{}` (V8 gives a constructed object at most about ten members in-object). */
const MAX_SIZED_MEMBERS = 10;

const MAKERS: PlainRecordMaker[] = [];

/** A new plain object (prototype Object.prototype, no own members) that will hold `members` members in-object. */
export function plainRecord(members: number): Record<string, unknown> {
  if (!(members >= 0 && members <= MAX_SIZED_MEMBERS)) return {};
  let Maker = MAKERS[members];
  if (Maker === undefined) {
    // A function of its own per count: each has its own initial layout. Named `Object`: where V8
    // reports an object's constructor by name (util.inspect once its prototype is gone, a heap
    // snapshot), it then says what it says of `{}`.
    // biome-ignore lint/complexity/useArrowFunction: an arrow function cannot be called with `new`.
    Maker = { Object: function () {} }.Object as unknown as PlainRecordMaker;
    Maker.prototype = Object.prototype;
    MAKERS[members] = Maker;
  }
  return new Maker();
}
