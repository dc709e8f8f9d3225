// Starts and kills app instances as separate processes over one database, to
// restart "the app" the way a deploy or a crash does.
import { spawn, type ChildProcess } from "node:child_process";
import net from "node:net";

// Next resolves "server-only" to an empty module on the server; a plain Node
// process needs the same, or the app's modules refuse to load.
const serverOnlyLoader = `data:text/javascript,${encodeURIComponent(
  `export async function resolve(specifier, context, next) { return specifier === "server-only" ? { url: "data:text/javascript,", shortCircuit: true } : next(specifier, context); }`,
)}`;
const registerLoader = `data:text/javascript,${encodeURIComponent(`import { register } from "node:module"; register(${JSON.stringify(serverOnlyLoader)});`)}`;

export type AppProcess = { url: string; child: ChildProcess; kill(signal?: NodeJS.Signals): Promise<void> };

export function startAppProcess({ port, env }: { port: number; env: Record<string, string> }): Promise<AppProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", "--import", registerLoader, "tests/faults/support/app-instance.ts"], {
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const kill = async (signal: NodeJS.Signals = "SIGKILL") => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  return new Promise((resolve, reject) => {
    let output = "";
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
      const match = output.match(/listening on (http:\/\/[\d.:]+)/);
      if (match) resolve({ url: match[1]!, child, kill });
    };
    child.stdout!.on("data", collect);
    child.stderr!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once("exit", (code) => reject(new Error(`app instance exited with ${code}: ${output}`)));
    setTimeout(() => reject(new Error(`app instance did not start: ${output}`)), 30_000).unref();
  });
}

export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
