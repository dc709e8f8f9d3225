import { runApp } from "./run-app";

runApp(["dev", ...process.argv.slice(2)]);
