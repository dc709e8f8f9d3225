// The mail catcher's stand-in (standins.Dockerfile): an SMTP server on
// 127.0.0.1:1025 (compose.yaml's SMTP_URL for the demo, smtp://127.0.0.1:1025)
// that takes every message and logs its recipients, without Mailpit's inbox.
import { SMTPServer } from "smtp-server";

const server = new SMTPServer({
  authOptional: true,
  allowInsecureAuth: true,
  disabledCommands: ["STARTTLS"],
  logger: false,
  onAuth: (auth, _session, callback) => callback(null, { user: auth.username }),
  onData(stream, session, callback) {
    stream.resume();
    stream.on("end", () => {
      console.log(`mail: a message to ${session.envelope.rcptTo.map((r) => r.address).join(", ")}`);
      callback();
    });
  },
});
server.listen(1025, "127.0.0.1", () => console.log("mail: SMTP on 127.0.0.1:1025"));
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => server.close(() => process.exit(0)));
