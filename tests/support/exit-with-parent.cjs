// Preloaded (node --require) into the servers the test harness starts as processes of their
// own (the gateway and payments simulators: global-setup.ts; `next start`: next-server.ts):
// each stops itself once the test process that started it is gone. Vitest ends a test file's
// worker with SIGTERM, which runs no exit handler; a file whose afterAll never ran (Vitest
// runs none for a file whose tests are all skipped, nor after an error at its top level) left
// its app and simulator running, holding the worker's output pipes open ("close timed out").
const parent = process.ppid;
const watch = setInterval(() => {
  if (process.ppid === parent) return; // re-parented: the test process has exited
  clearInterval(watch);
  process.kill(process.pid, "SIGTERM");
  setTimeout(() => process.exit(1), 5_000).unref();
}, 500);
watch.unref();
