// Another app instance's event bus, in a process of its own, for the
// cross-instance test: prints each event it hears (and each gap) as a JSON
// line, and publishes each JSON line it reads on stdin.
import readline from "node:readline";
import { createPostgresBus } from "../../lib/events/postgres-bus";

const bus = createPostgresBus({ url: process.argv[2]! });
bus.subscribe({
  onEvent: (event) => console.log(JSON.stringify({ type: "event", event })),
  onGap: () => console.log(JSON.stringify({ type: "gap" })),
});
for await (const line of readline.createInterface({ input: process.stdin })) {
  if (line.trim()) await bus.publish(JSON.parse(line));
}
await bus.close();
