// An independent client of the venue's identity door, built on the jose
// JWT library the way the TypeScript SDK's Ed25519Auth and createUCANJWT
// build their tokens: a did:key identity, a fresh self-issued EdDSA token per
// request addressed to the DID /api/v1/status reports, and UCAN 0.10 JWTs
// delegating {with, can}. Usage: node client.mjs http://127.0.0.1:PORT
import { generateKeyPairSync } from "node:crypto";
import { SignJWT } from "jose";

const base = process.argv[2];
if (!base) {
  console.error("usage: node client.mjs <venue base URL>");
  process.exit(2);
}
const alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

function base58(bytes) {
  let n = BigInt("0x" + Buffer.from(bytes).toString("hex"));
  let out = "";
  while (n > 0n) {
    out = alphabet[Number(n % 58n)] + out;
    n /= 58n;
  }
  for (const b of bytes) {
    if (b !== 0) break;
    out = "1" + out;
  }
  return out;
}

function identity() {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const raw = Buffer.from(publicKey.export({ format: "jwk" }).x, "base64url");
  const kid = "z" + base58(Buffer.concat([Buffer.from([0xed, 0x01]), raw]));
  return { did: "did:key:" + kid, kid, key: privateKey };
}

const seconds = () => Math.floor(Date.now() / 1000);

function bearer(id, aud, exp = seconds() + 300) {
  return new SignJWT({ sub: id.did, iss: id.did, iat: seconds(), exp, aud })
    .setProtectedHeader({ alg: "EdDSA", typ: "JWT", kid: id.kid })
    .sign(id.key);
}

// Every UCAN here expires at the same second: a delegation made a second
// after its proof would otherwise outlive it, and be refused for that
// rather than for what a case checks.
const ucanExp = seconds() + 600;

function ucan(from, aud, att, prf = []) {
  return new SignJWT({ iss: from.did, aud, ucv: "0.10.0", att, prf, exp: ucanExp })
    .setProtectedHeader({ alg: "EdDSA", typ: "JWT", kid: from.kid })
    .sign(from.key);
}

async function call(method, path, token, body, headers = {}) {
  const h = { ...headers };
  if (token) h.Authorization = "Bearer " + token;
  if (body !== undefined) h["Content-Type"] = "application/json";
  const resp = await fetch(base + path, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: resp.status, body: await resp.json() };
}

function expect(what, r, status, check = () => true) {
  if (r.status !== status || !check(r.body)) {
    console.error(`authcheck: ${what}: got ${r.status} ${JSON.stringify(r.body)}, want ${status}`);
    process.exit(1);
  }
  console.log(`ok  ${what}`);
}

const venue = (await call("GET", "/api/v1/status")).body.did;
const alice = identity();
const bob = identity();
const note = `/api/v1/values/read?path=${encodeURIComponent(alice.did + "/w/js/note")}`;

expect("a self-issued token stores a secret", await call("PUT", "/api/v1/secrets/JS_KEY", await bearer(alice, venue), { value: "v-js-key" }), 200);
expect("a fresh token per request is the same caller", await call("GET", "/api/v1/secrets", await bearer(alice, venue)), 200,
  (b) => b.items.includes("JS_KEY"));
expect("another caller does not see it", await call("GET", "/api/v1/secrets", await bearer(bob, venue)), 200,
  (b) => !b.items.includes("JS_KEY"));
expect("the owner writes its workspace", await call("POST", "/api/v1/run", await bearer(alice, venue),
  { operation: "v/ops/core/write", input: { path: "w/js/note", value: "from-jose" } }), 200);
expect("another caller may not read it", await call("GET", note, await bearer(bob, venue)), 403);
const grant = await ucan(alice, bob.did, [{ with: alice.did + "/w/js", can: "crud/read" }]);
expect("a UCAN from the owner opens it", await call("GET", note, await bearer(bob, venue), undefined, { "X-Covia-Ucans": grant }), 200,
  (b) => b.value === "from-jose");
const invoked = await call("POST", "/api/v1/invoke", await bearer(bob, venue),
  { operation: "v/ops/core/read", input: { path: alice.did + "/w/js/note" }, ucans: [grant], wait: true });
expect("ucans on invoke carry the grant into the job", invoked, 201, (b) => b.status === "COMPLETE" && b.output.value === "from-jose");
const widened = await ucan(bob, bob.did, [{ with: alice.did + "/w", can: "crud/read" }], [grant]);
expect("a delegation wider than its proof is refused", await call("GET", note, await bearer(bob, venue), undefined, { "X-Covia-Ucans": widened }), 403,
  (b) => b.error.includes("widened capability"));
expect("a grant to bob is no use to anyone else", await call("GET", note, await bearer(identity(), venue), undefined, { "X-Covia-Ucans": grant }), 403,
  (b) => b.error.includes("issued to someone else"));
expect("an expired token is refused", await call("GET", "/api/v1/secrets", await bearer(alice, venue, seconds() - 3600)), 401,
  (b) => b.error.includes("expired"));
expect("a 100-year token is refused", await call("GET", "/api/v1/secrets", await bearer(alice, venue, seconds() + 100 * 365 * 86400)), 401,
  (b) => b.error.includes("valid for at most"));
expect("a token for another venue is refused", await call("GET", "/api/v1/secrets", await bearer(alice, "did:web:elsewhere.example")), 401,
  (b) => b.error.includes("audience"));
console.log("authcheck: ok");
