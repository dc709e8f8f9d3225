// `npm run stills`: makes the still of every stored copy that has never had
// one tried (copies stored before stills existed). Requests for a still do the
// same one at a time; this does them all at once, e.g. after an upgrade.
import "./load-env-files";
import { backfillAllStills } from "../lib/copies/stills";
import { getMediaStorage } from "../lib/storage/storage";
import { toolchainVersion } from "../lib/media/toolchain";

const storage = await getMediaStorage();
if (!storage) {
  console.log("[stills] MEDIA_STORAGE=none: there are no stored copies.");
  process.exit(0);
}
if (!(await toolchainVersion())) {
  console.error("[stills] FFmpeg is not on PATH: `npm run doctor` says how to install it.");
  process.exit(1);
}
const { tried, made } = await backfillAllStills({ storage });
console.log(`[stills] ${tried} stored cop${tried === 1 ? "y" : "ies"} without a still tried, ${made} still${made === 1 ? "" : "s"} made.`);
process.exit(0);
