// Server actions over HTTP, as React's client calls them: a POST to the page
// with the action's id (from this build's manifest) and its arguments.
import fs from "node:fs";
import path from "node:path";
import { testDistDir } from "../../scripts/test-build";
import { testEngine } from "./test-database";

export type ActionManifest = { node: Record<string, { exportedName?: string }> };

/** A server action's id in a build's manifest (`server-reference-manifest.json`): the ids are the build's. */
export function actionIdIn(manifest: ActionManifest, exportedName: string): string {
  const found = Object.entries(manifest.node).find(([, entry]) => entry.exportedName === exportedName);
  if (!found) throw new Error(`no server action ${exportedName} in the build`);
  return found[0];
}

/** A server action's id in this build, as the browser's form or button posts it. */
export function actionId(exportedName: string): string {
  const manifest = JSON.parse(fs.readFileSync(path.join(testDistDir(testEngine()), "server", "server-reference-manifest.json"), "utf8")) as ActionManifest;
  return actionIdIn(manifest, exportedName);
}

/** Calls a server action with plain arguments, as React's client does from the page at `page` (`ids`: another build's action ids). */
export async function callAction(visitor: (path: string, init?: RequestInit) => Promise<Response>, name: string, args: unknown[], page = "/", ids = actionId) {
  const response = await visitor(page, {
    method: "POST",
    headers: { "Next-Action": ids(name), Accept: "text/x-component", "Content-Type": "text/plain;charset=UTF-8" },
    body: JSON.stringify(args),
  });
  return { status: response.status, text: await response.text() };
}
