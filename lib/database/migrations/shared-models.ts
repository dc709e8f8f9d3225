// One set of models for both engines: prisma/models.prisma is copied into the
// engine's schema folder (prisma/<engine>/models.prisma, not committed) so that
// the folder is a complete multi-file schema for the CLI. A line of the models
// written as `// postgres: <attribute>` (or `// sqlite: …`) is an attribute of
// that engine only, e.g. an index type the other does not have: it is
// uncommented in that engine's copy and stays a comment in the other's.
import fs from "node:fs";
import path from "node:path";

const MODELS_FILE = "prisma/models.prisma";

const BANNER = "// Generated copy of prisma/models.prisma: edit that file, not this one.\n";

export function placeSharedModels(folder: string, root = process.cwd()): string {
  const target = path.join(root, folder, "models.prisma");
  const engine = path.basename(folder);
  const models = fs.readFileSync(path.join(root, MODELS_FILE), "utf8");
  const content = BANNER + models.replace(new RegExp(`^(\\s*)// ${engine}: `, "gm"), "$1");
  if (!fs.existsSync(target) || fs.readFileSync(target, "utf8") !== content) fs.writeFileSync(target, content);
  return target;
}
