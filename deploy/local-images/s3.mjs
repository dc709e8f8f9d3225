// The S3 store's stand-in (standins.Dockerfile): s3rver on 127.0.0.1:8333, as
// compose.yaml's SeaweedFS serves S3, keeping objects in /data (the s3data
// volume). It knows the key pair of S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY;
// s3rver checks a request's key id but not its SigV4 signature (and lets
// anonymous requests in), so this proves the wiring, not S3's access control.
import S3rver from "s3rver";
import Account from "s3rver/lib/models/account.js";

const { S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY } = process.env;
if (!S3_ACCESS_KEY_ID || !S3_SECRET_ACCESS_KEY) throw new Error("set S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY");
Account.DUMMY_ACCOUNT.createKeyPair(S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY);

const server = new S3rver({ address: "127.0.0.1", port: 8333, silent: true, directory: "/data" });
const { address, port } = await server.run();
console.log(`s3rver: S3 on http://${address}:${port}, objects in /data`);
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => void server.close().then(() => process.exit(0)));
