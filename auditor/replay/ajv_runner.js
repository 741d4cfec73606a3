// Ajv as the MCP TypeScript SDK runs it, driven in batches: one JSON line in per instance,
// one JSON line out per verdict (auditor/replay/ajv.py). Never installs anything: ajv and
// ajv-formats are found through NODE_PATH, where the caller installed them beforehand.
//
// In:  {"id": 1, "runtime": "mcp-ts-v2" | "mcp-ts-v1", "schema": {...}, "instance": ...}
// Out: {"id": 1, "valid": true | false, "errors": [{"instancePath", "schemaPath", "keyword",
//      "message"}...]} or {"id": 1, "unusable": "why the runtime cannot use the schema"}
"use strict";
const readline = require("readline");
const Ajv = require("ajv").default;
const Ajv2019 = require("ajv/dist/2019").default;
const Ajv2020 = require("ajv/dist/2020").default;
const addFormats = require("ajv-formats").default;

// createDefaultAjvInstance of the SDK (v1 validation/ajv-provider.js; v2 ajvProvider.ts).
function engine(cls) {
  const ajv = new cls({ strict: false, validateFormats: true, validateSchema: false, allErrors: true });
  addFormats(ajv);
  return ajv;
}

const engines = {};
function lazy(name, cls) {
  return (engines[name] ??= engine(cls));
}

// declaredDialect (packages/core-internal/src/validators/dialects.ts).
const DIALECTS = {
  "https://json-schema.org/draft/2020-12/schema": "2020-12",
  "http://json-schema.org/draft/2020-12/schema": "2020-12",
  "https://json-schema.org/draft/2019-09/schema": "2019-09",
  "http://json-schema.org/draft/2019-09/schema": "2019-09",
  "https://json-schema.org/draft-07/schema": "draft-7",
  "http://json-schema.org/draft-07/schema": "draft-7",
  "https://json-schema.org/draft-06/schema": "draft-7",
  "http://json-schema.org/draft-06/schema": "draft-7",
};

// AjvJsonSchemaValidator._engineFor (v2); v1 has one classic (draft-07) engine.
function engineFor(runtime, schema) {
  if (runtime === "mcp-ts-v1") return lazy("v1", Ajv);
  if (typeof schema !== "object" || schema === null || typeof schema.$schema !== "string") {
    return lazy("2020", Ajv2020);
  }
  const dialect = DIALECTS[schema.$schema.replace(/#$/, "")];
  if (dialect === "2020-12") return lazy("2020", Ajv2020);
  if (dialect === "2019-09") return lazy("2019", Ajv2019);
  if (dialect === "draft-7") return lazy("draft-7", Ajv);
  throw new Error(`JSON Schema declares an unsupported dialect ("$schema": "${schema.$schema.slice(0, 200)}")`);
}

// Compiled by schema text, as _getCompiled caches schemas without $id (a fresh copy each).
const compiled = new Map();
function validatorFor(runtime, schema) {
  const key = runtime + "\u0000" + JSON.stringify(schema);
  let found = compiled.get(key);
  if (found === undefined) {
    try {
      const ajv = engineFor(runtime, schema);
      found = { validate: ajv.compile(JSON.parse(JSON.stringify(schema))) };
    } catch (error) {
      found = { unusable: String(error && error.message ? error.message : error) };
    }
    compiled.set(key, found);
  }
  return found;
}

const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on("line", (line) => {
  if (!line.trim()) return;
  const request = JSON.parse(line);
  const found = validatorFor(request.runtime, request.schema);
  let answer;
  if (found.unusable !== undefined) {
    answer = { id: request.id, unusable: found.unusable };
  } else {
    const valid = found.validate(request.instance);
    const errors = (found.validate.errors || []).map((e) => ({
      instancePath: e.instancePath,
      schemaPath: e.schemaPath,
      keyword: e.keyword,
      message: e.message,
    }));
    answer = { id: request.id, valid: Boolean(valid), errors: valid ? [] : errors };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
});
