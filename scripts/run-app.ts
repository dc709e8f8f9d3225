// What `npm run dev` and `npm start` share: migrate the database, then run the
// app beside the gateway simulator (unless GATEWAY_BASE_URL points elsewhere)
// and the payments simulator (when it takes the payments, on this machine),
// and stop them together.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import "./load-env-files";
import { env, isLoopback } from "../lib/env";
import { isLoopbackHost } from "../lib/http/loopback";
import { migrateDatabase } from "../lib/database/migrations/migrate";
import { ensurePrismaClientFor } from "../lib/database/migrations/prisma-client";
import { appEnvironment } from "./app-environment";

export async function runApp(nextArgs: string[]): Promise<void> {
  try {
    // A production build carries its own client (npm run build generates it).
    if (nextArgs[0] === "dev") ensurePrismaClientFor(env.DATABASE_URL);
    await migrateDatabase({ databaseUrl: env.DATABASE_URL, directUrl: env.DATABASE_DIRECT_URL });
  } catch (error) {
    console.error(`[framehook] database migration failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }

  const development = nextArgs[0] === "dev";
  // Development serves the mailbox, public development secrets and the simulators' control APIs: this computer only,
  // unless DEV_LISTEN_HOST opens it (and then those answer loopback only, or ask for a token).
  const host = env.DEV_LISTEN_HOST;
  if (development && !isLoopbackHost(host)) {
    console.warn(
      `[framehook] warning: DEV_LISTEN_HOST=${host}: the development servers answer other machines on your network. ` +
        "The development mailbox and the public development secrets still answer this computer only, and the payments simulator's control API asks for a token (it prints it).",
    );
  }
  const listenOn = (name: string) => (development && !process.env[name] ? { [name]: host } : {});

  const children: ChildProcess[] = [];
  if (env.gatewayIsLocal) {
    const port = new URL(env.GATEWAY_BASE_URL).port || "80";
    children.push(spawn(process.execPath, ["--import", "tsx", "simulator/main.ts"], { stdio: "inherit", env: { ...process.env, SIMULATOR_PORT: port, ...listenOn("SIMULATOR_HOST") } }));
  } else {
    console.log(`[framehook] using the gateway at ${new URL(env.GATEWAY_BASE_URL).origin}; the simulator is not started`);
  }
  const payments = env.payments;
  if (payments.mode === "simulator" && isLoopback(payments.simulatorUrl)) {
    // Stripe's stand-in sends its events to this app's webhook, signed with the secret the app checks.
    children.push(
      spawn(process.execPath, ["--import", "tsx", "simulator/payments/main.ts"], {
        stdio: "inherit",
        env: {
          ...process.env,
          PAYMENTS_SIMULATOR_PORT: new URL(payments.simulatorUrl).port || "80",
          ...listenOn("PAYMENTS_SIMULATOR_HOST"),
          PAYMENTS_SIMULATOR_WEBHOOK_URL: `${env.PUBLIC_BASE_URL.replace(/\/$/, "")}/api/webhooks/stripe`,
          PAYMENTS_SIMULATOR_WEBHOOK_SECRET: payments.webhookSecret ?? "",
        },
      }),
    );
  } else if (payments.mode === "off") {
    console.log(`[framehook] buying credits is off: ${payments.reason} (docs/payments.md)`);
  }
  // `next dev` listens on every interface unless told a host; an explicit --hostname/-H on the command line wins.
  const hostArgs = development && !nextArgs.some((arg) => arg === "-H" || arg === "--hostname" || arg.startsWith("--hostname=")) ? ["--hostname", host] : [];
  children.push(spawn(bin("next"), [...nextArgs, ...hostArgs], { stdio: "inherit", env: appEnvironment() }));

  let stopping = false;
  const stop = (code: number) => {
    if (stopping) return;
    stopping = true;
    for (const child of children) child.kill("SIGTERM");
    setTimeout(() => process.exit(code), 500).unref();
  };
  for (const child of children) child.on("exit", (code) => stop(code ?? 1));
  process.on("SIGINT", () => stop(0));
  process.on("SIGTERM", () => stop(0));
}

const bin = (name: string) => path.join(process.cwd(), "node_modules", ".bin", name);
