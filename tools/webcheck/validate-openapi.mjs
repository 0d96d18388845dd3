#!/usr/bin/env node
// Validates the venue's OpenAPI document the way a strict OpenAPI 3.0 client
// reads it. The venue promises 3.0 because many generators and UIs still
// reject 3.1, and swagger-parser is strict enough to catch the 3.1 leftovers
// (such as "const") that Huma's downgrade lets through.
//
// Usage: node validate-openapi.mjs <url-or-file>
// Prints "valid OpenAPI <version>: <n> paths" and exits 0, or explains the
// failure on stderr and exits 1 (2 for bad usage).
import { readFile } from "node:fs/promises";
import SwaggerParser from "@apidevtools/swagger-parser";

// load fetches the document itself rather than letting swagger-parser do it,
// so that a wrong status or Content-Type from the venue fails the check too.
async function load(source) {
  if (!/^https?:\/\//.test(source)) {
    return JSON.parse(await readFile(source, "utf8"));
  }
  const res = await fetch(source, { headers: { Accept: "application/json" } });
  if (!res.ok) {
    throw new Error(`GET ${source}: HTTP ${res.status}`);
  }
  const type = res.headers.get("content-type") ?? "";
  if (!type.startsWith("application/json")) {
    throw new Error(`GET ${source}: Content-Type "${type}", want application/json`);
  }
  return JSON.parse(await res.text());
}

async function main(source) {
  const doc = await load(source);
  if (typeof doc.openapi !== "string" || !doc.openapi.startsWith("3.0")) {
    throw new Error(`"openapi" is ${JSON.stringify(doc.openapi)}, want 3.0.x`);
  }
  // validate dereferences in place; keep the original for the report.
  await SwaggerParser.validate(structuredClone(doc));
  const paths = Object.keys(doc.paths ?? {}).length;
  console.log(`valid OpenAPI ${doc.openapi}: ${paths} paths`);
}

const source = process.argv[2];
if (!source || process.argv.length > 3) {
  console.error("usage: node validate-openapi.mjs <url-or-file>");
  process.exit(2);
}
main(source).catch((err) => {
  console.error(`invalid OpenAPI document ${source}: ${err.message}`);
  process.exit(1);
});
