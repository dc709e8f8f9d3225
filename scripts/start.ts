import "./production-env";
import { runApp } from "./run-app";

void runApp(["start", ...process.argv.slice(2)]);
