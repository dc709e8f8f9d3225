// Preloaded into a server under test (NODE_OPTIONS=--import <this file>):
// appends the URL of every module it resolves under node_modules/@opentelemetry
// to the file MODULE_PROBE_FILE names, require and import alike, so that a
// test can say which of OpenTelemetry's packages a process loaded.
import fs from "node:fs";
import { registerHooks } from "node:module";

const file = process.env.MODULE_PROBE_FILE;
if (file) {
  registerHooks({
    resolve(specifier, context, nextResolve) {
      const resolved = nextResolve(specifier, context);
      if (resolved.url.includes("/node_modules/@opentelemetry/")) fs.appendFileSync(file, `${resolved.url}\n`);
      return resolved;
    },
  });
}
