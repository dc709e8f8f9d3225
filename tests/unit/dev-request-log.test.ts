// What `next dev` prints of each request, by Next's own rule and the kit's
// next.config.ts: a URL that is a credential (a callback's token, an input
// link's signature) never reaches the terminal; ordinary requests still do.
import { createRequire } from "node:module";
import { describe, expect, test } from "vitest";
import nextConfig from "../../next.config";

const require = createRequire(import.meta.url);
const { ignoreLoggingIncomingRequests } = require("next/dist/server/dev/log-requests.js") as {
  ignoreLoggingIncomingRequests: (request: { url: string }, logging: unknown) => boolean;
};
const logged = (url: string) => !ignoreLoggingIncomingRequests({ url }, nextConfig.logging);

describe("next dev's request log", () => {
  test.each([
    "/api/inputs/upl_4f1c2d9e8b7a6c5d4e3f2a1b?expires=1764288000&sig=Qm4vT8zRk2Lw6Yp0Hd3xYz",
    "/api/inputs/upl_4f1c2d9e8b7a6c5d4e3f2a1b?sig=Qm4vT8zRk2Lw6Yp0Hd3xYz&expires=1764288000",
    "/api/webhooks/gateway?token=gen_1.Qm4vT8zRk2Lw6Yp0Hd3",
    "/api/anything-else?expires=1&sig=Qm4vT8zRk2Lw6Yp0Hd3",
  ])("leaves out %s", (url) => {
    expect(logged(url)).toBe(false);
  });

  test.each(["/", "/api/generations?limit=20", "/api/media/med_1/still", "/generations/gen_1", "/api/uploads?model=alpha-2.5-first-last-frame-480p&field=first_frame_url"])(
    "still prints %s",
    (url) => {
      expect(logged(url)).toBe(true);
    },
  );
});
