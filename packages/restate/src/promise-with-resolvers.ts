// @restatedev/restate-sdk 1.17 calls Promise.withResolvers (Node 22+) and declares no engines; on
// Node 20 every invocation fails with "Promise.withResolvers is not a function". The endpoint in
// these tests runs in the test process, so the test setup defines it (see docs/integrations/restate.md).
declare global {
  interface PromiseConstructor {
    withResolvers<T>(): {
      promise: Promise<T>;
      resolve: (value: T | PromiseLike<T>) => void;
      reject: (reason?: unknown) => void;
    };
  }
}

if (typeof Promise.withResolvers !== 'function') {
  Promise.withResolvers = <T>() => {
    let resolve!: (value: T | PromiseLike<T>) => void;
    let reject!: (reason?: unknown) => void;
    const promise = new Promise<T>((onResolve, onReject) => {
      resolve = onResolve;
      reject = onReject;
    });
    return { promise, resolve, reject };
  };
}

export {};
