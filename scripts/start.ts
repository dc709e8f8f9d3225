import "./production-env";
import { runApp } from "./run-app";

runApp(["start", ...process.argv.slice(2)]);
