// The bucket job's stand-in (standins.Dockerfile): creates the bucket
// (BUCKET, default framehook) in the S3 store on 127.0.0.1:8333 once it
// answers, and exits 0 once the bucket is there, as compose.yaml's `bucket`
// job does with SeaweedFS's shell.
const endpoint = process.env.S3_ENDPOINT ?? "http://127.0.0.1:8333";
const bucket = process.env.BUCKET ?? "framehook";
const deadline = Date.now() + 120_000;
for (;;) {
  const created = await fetch(`${endpoint}/${bucket}`, { method: "PUT" }).catch(() => null);
  // 409: it exists already (a second `up` on the same volume).
  if (created && (created.ok || created.status === 409)) break;
  if (Date.now() > deadline) throw new Error(`the S3 store at ${endpoint} did not take the bucket within 120 s`);
  await new Promise((resolve) => setTimeout(resolve, 500));
}
const head = await fetch(`${endpoint}/${bucket}`, { method: "HEAD" });
if (!head.ok) throw new Error(`bucket ${bucket}: HEAD answered ${head.status}`);
console.log(`bucket ${bucket} ready at ${endpoint}`);
