// node parse.mjs FILE: parses a GitHub Actions workflow with GitHub's own
// parser (@actions/workflow-parser, the one behind the Actions language
// server), schema validation and conversion both, and prints each error
// (most name the file, line and column); exit 1 if there is any, 2 on bad
// usage.
import { readFileSync } from "node:fs";
import { register } from "node:module";

// The package imports its JSON schema without `with { type: "json" }`,
// as a bundler allows and Node.js does not: a load hook adds the attribute.
register(
  "data:text/javascript," +
    encodeURIComponent(`export async function load(url, context, next) {
      if (url.endsWith(".json")) context = { ...context, importAttributes: { type: "json" } };
      return next(url, context);
    }`),
);
const { convertWorkflowTemplate, NoOperationTraceWriter, parseWorkflow } = await import("@actions/workflow-parser");

const [file, ...rest] = process.argv.slice(2);
if (!file || rest.length > 0) {
  console.error("usage: node parse.mjs FILE");
  process.exit(2);
}

let content;
try {
  content = readFileSync(file, "utf8");
} catch (e) {
  console.error(`parse.mjs: ${e.message}`);
  process.exit(2);
}
const parsed = parseWorkflow({ name: file, content }, new NoOperationTraceWriter());
const messages = parsed.context.errors.getErrors().map((e) => e.message);
if (parsed.value === undefined) {
  messages.push(`${file}: no workflow: the parser returned no template`);
} else if (messages.length === 0) {
  // Conversion checks what the schema cannot: events' filters, job needs,
  // cron, concurrency. Its errors land in the same context.
  const template = await convertWorkflowTemplate(parsed.context, parsed.value);
  messages.push(...(template.errors ?? []).map((e) => e.Message));
  if (!template.jobs?.length) {
    messages.push(`${file}: no jobs after conversion`);
  }
}
for (const m of new Set(messages)) {
  console.log(m);
}
process.exit(messages.length > 0 ? 1 : 0);
