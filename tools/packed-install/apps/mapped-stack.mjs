// What a user sees in the stack of a FaultlineError built inside faultline (one with no cause keeps
// its stack): `errorFromMetadata` from the installed @faultline/render, thrown here. The driver runs
// it with `node --enable-source-maps` and checks that the frames inside faultline are mapped to
// the shipped `src/*.ts` files at the right lines, and (argument `uncaught`) what Node prints above
// an uncaught error's trace, with and without the flag; and the class's name as `console.log` prints it.
import { inspect } from 'node:util';
import { errorFromMetadata } from '@faultline/render/toolkit';

function fail() {
  throw errorFromMetadata({
    provider: 'openai',
    httpStatus: 429,
    message: 'You exceeded your current quota',
  });
}

if (process.argv[2] === 'uncaught') fail();
try {
  fail();
} catch (error) {
  process.stdout.write(
    JSON.stringify({
      stack: String(error.stack),
      constructorName: error.constructor.name,
      inspected: inspect(error).split('\n')[0],
    }),
  );
}
