import { runApp } from "./run-app";

void runApp(["dev", ...process.argv.slice(2)]);
