// A CommonJS user: require() every installed @faultline package (Node >= 20.19 loads ESM through
// require). Prints { name: exportCount } as JSON; a package that cannot be required is an error.
// A package without a main entry (@faultline/demo: a bin over its dependencies) has nothing to load.
const { readdirSync, readFileSync } = require('node:fs');
const { join } = require('node:path');

const scope = join(process.cwd(), 'node_modules', '@faultline');
const names = readdirSync(scope)
  .filter(
    (name) =>
      JSON.parse(readFileSync(join(scope, name, 'package.json'), 'utf8')).exports?.['.'] !== undefined,
  )
  .map((name) => `@faultline/${name}`);
const result = {};
const failures = [];
for (const name of names) {
  try {
    const loaded = require(name);
    result[name] = Object.keys(loaded).filter((key) => key !== '__esModule').length;
  } catch (error) {
    failures.push(`${name}: ${error?.code ? `${error.code} ` : ''}${error?.message}`);
  }
}
console.log(JSON.stringify({ loaded: result, failures }));
if (failures.length > 0) process.exitCode = 1;
