// Drives `ctxsearch mcp` with the official TypeScript SDK (Client + StdioClientTransport), as a
// real MCP host does: initialize, tools/list, one or more calls of every tool, error results,
// a cancelled call, ping. The SDK validates each structuredContent against the tool's
// outputSchema (Client.callTool, SDK >= 1.13); every result is validated again here with ajv so
// the check does not depend on the SDK version.
//
// Usage: node mcp_sdk_client.mjs NPM_DIR TREE_DIR FILE_SIZE -- COMMAND [ARGS...]
//   NPM_DIR   a directory whose node_modules holds @modelcontextprotocol/sdk (and ajv)
//   TREE_DIR  the tree test_mcp_sdk.py built (the server's --root)
//   FILE_SIZE the byte size of src/alpha.py (file_info must report it)
// Prints one line per check ("ok ..." / "FAIL ...") and exits 1 when any check failed.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const argv = process.argv.slice(2);
const dash = argv.indexOf('--');
if (dash !== 3 || argv.length < 5) {
  console.error('usage: node mcp_sdk_client.mjs NPM_DIR TREE_DIR FILE_SIZE -- COMMAND [ARGS...]');
  process.exit(2);
}
const [npmDir, treeDir, fileSizeText] = argv;
const [command, ...commandArgs] = argv.slice(4);
const fileSize = Number(fileSizeText);

const require = createRequire(join(npmDir, 'package.json'));
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
const sdkVersion = JSON.parse(readFileSync(
  join(npmDir, 'node_modules', '@modelcontextprotocol', 'sdk', 'package.json'), 'utf8')).version;
const AjvModule = require('ajv');
const Ajv = AjvModule.default ?? AjvModule;

let failures = 0;
function check(condition, what, detail) {
  if (condition) {
    console.log(`ok   ${what}`);
  } else {
    failures += 1;
    console.log(`FAIL ${what}${detail === undefined ? '' : ': ' + detail}`);
  }
}
const show = (value) => {
  const text = JSON.stringify(value);
  return text && text.length > 600 ? text.slice(0, 600) + '...' : text;
};
const textOf = (result) => (result.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
// True when some number anywhere in `value` equals `n`.
function holdsNumber(value, n) {
  if (typeof value === 'number') return value === n;
  if (value && typeof value === 'object') return Object.values(value).some((v) => holdsNumber(v, n));
  return false;
}

const transport = new StdioClientTransport({ command, args: commandArgs, cwd: treeDir, stderr: 'pipe' });
let serverStderr = '';
transport.stderr?.on('data', (chunk) => {
  serverStderr += chunk.toString();
});
const client = new Client({ name: 'ctxsearch-sdk-test', version: '1.0.0' });

const validators = new Map();
// Calls a tool; returns the result or the thrown error (as {thrown}).
async function call(name, args, options) {
  try {
    return await client.callTool({ name, arguments: args }, undefined, options);
  } catch (error) {
    return { thrown: error };
  }
}
// A successful call: not thrown, not isError, structuredContent valid against outputSchema.
async function callOk(name, args) {
  const result = await call(name, args);
  const label = `${name} ${JSON.stringify(args)}`;
  if (result.thrown) {
    check(false, `${label} succeeds`, `the SDK threw: ${result.thrown.message}`);
    return null;
  }
  check(result.isError !== true, `${label} is not an error`, textOf(result));
  if (result.isError) return null;
  const validate = validators.get(name);
  const valid = result.structuredContent !== undefined && validate(result.structuredContent);
  check(valid, `${label} structuredContent matches outputSchema`,
    show(validate.errors ?? 'no structuredContent'));
  return result;
}
// A tool error: isError true, no throw, text = {"code","message","hint"} with the given code.
async function callError(name, args, code) {
  const result = await call(name, args);
  const label = `${name} ${JSON.stringify(args)} -> ${code}`;
  if (result.thrown) {
    check(false, label, `the SDK threw: ${result.thrown.message}`);
    return;
  }
  let error = null;
  try {
    error = JSON.parse(textOf(result));
  } catch {
    // reported below
  }
  check(result.isError === true && error !== null && error.code === code &&
    typeof error.message === 'string' && error.message.length > 0 && typeof error.hint === 'string',
    label, show(result));
}

try {
  await client.connect(transport);
  check(client.getServerVersion()?.name === 'ctxsearch', 'serverInfo.name is ctxsearch',
    show(client.getServerVersion()));
  check(client.getServerCapabilities()?.tools !== undefined, 'the tools capability is declared',
    show(client.getServerCapabilities()));
  check(typeof client.getInstructions() === 'string' && client.getInstructions().length > 0,
    'initialize carries instructions');

  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).sort();
  check(show(names) === show(['file_info', 'find_files', 'list_directory', 'read_file', 'search_files']),
    'tools/list names the five tools', show(names));
  const ajv = new Ajv({ strict: false, allErrors: true });
  for (const tool of tools) {
    check(tool.inputSchema?.type === 'object' && tool.outputSchema?.type === 'object',
      `${tool.name} has object input and output schemas`);
    check(tool.annotations?.readOnlyHint === true && tool.annotations?.openWorldHint === false,
      `${tool.name} is annotated read-only and closed-world`);
    check(typeof tool.description === 'string' && tool.description.length > 0,
      `${tool.name} has a description`);
    try {
      ajv.compile(tool.inputSchema);
      validators.set(tool.name, ajv.compile(tool.outputSchema));
      check(true, `${tool.name} schemas compile`);
    } catch (error) {
      check(false, `${tool.name} schemas compile`, error.message);
      validators.set(tool.name, () => false);
    }
  }
  // The SDK checks structuredContent itself from 1.13 on; say which path is in use.
  console.log(`info SDK ${sdkVersion}; SDK-side output validation: ` +
    `${typeof client.getToolOutputValidator === 'function' ? 'yes' : 'no (ajv only)'}`);

  // search_files finds the known lines, and only them.
  const search = await callOk('search_files', { pattern: 'needle_[0-9]+' });
  if (search) {
    const text = textOf(search);
    const all = text + JSON.stringify(search.structuredContent);
    check(all.includes('src/alpha.py') && all.includes('needle_42'), 'search_files finds needle_42 in src/alpha.py', text);
    check(all.includes('docs/guide.md') && all.includes('needle_7'), 'search_files finds needle_7 in docs/guide.md', text);
    check(!all.includes('needle_99') && !all.includes('.env'), 'search_files does not reveal the protected .env', text);
  }
  const literal = await callOk('search_files', { pattern: 'def alpha', path: 'src' });
  if (literal) {
    check(textOf(literal).includes('src/alpha.py'), 'search_files under path=src finds def alpha', textOf(literal));
  }

  const read = await callOk('read_file', { path: 'src/alpha.py' });
  if (read) {
    check(textOf(read).includes('def alpha():'), 'read_file returns the first line', textOf(read));
    check(textOf(read).includes('x = "needle_42"'), 'read_file returns the second line', textOf(read));
  }
  const window = await callOk('read_file', { path: 'src/alpha.py', offset: 3, limit: 1 });
  if (window) {
    const text = textOf(window);
    check(text.includes('return x') && !text.includes('def alpha'), 'read_file offset=3 limit=1 returns line 3 only', text);
  }

  const found = await callOk('find_files', { pattern: '**/*.md' });
  if (found) {
    const all = textOf(found) + JSON.stringify(found.structuredContent);
    check(all.includes('docs/guide.md') && !all.includes('alpha.py'), 'find_files **/*.md lists docs/guide.md only', all);
  }

  const listing = await callOk('list_directory', { path: '.' });
  if (listing) {
    const all = textOf(listing) + JSON.stringify(listing.structuredContent);
    check(all.includes('src') && all.includes('docs'), 'list_directory shows src and docs', all);
    check(!all.includes('.env'), 'list_directory hides the protected .env', all);
  }

  const info = await callOk('file_info', { path: 'src/alpha.py' });
  if (info) {
    check(holdsNumber(info.structuredContent, fileSize), `file_info reports the size ${fileSize}`,
      show(info.structuredContent));
  }

  await callError('read_file', { path: 'no/such/file.txt' }, 'not_found');
  await callError('read_file', { path: '../outside.txt' }, 'outside_root');
  await callError('read_file', { path: '.env' }, 'not_found');
  await callError('read_file', { path: 'src/alpha.py', bogus_parameter: 1 }, 'invalid_argument');
  await callError('search_files', { pattern: 'a(' }, 'invalid_pattern');
  await callError('no_such_tool', {}, 'invalid_argument');

  // A call cancelled by the client (notifications/cancelled) leaves the server serving.
  const controller = new AbortController();
  const cancelled = call('search_files', { pattern: 'needle' }, { signal: controller.signal });
  controller.abort('test');
  const outcome = await cancelled;
  check(outcome.thrown !== undefined || outcome.content !== undefined, 'an aborted call settles');
  await client.ping();
  check(true, 'ping after a cancelled call');
  const again = await callOk('read_file', { path: 'docs/guide.md' });
  check(again !== null && textOf(again).includes('needle_7'), 'the server still answers after a cancellation');
} catch (error) {
  check(false, 'the session runs to the end', error.stack ?? String(error));
} finally {
  await client.close().catch(() => {});
}
if (failures > 0 && serverStderr) {
  console.log('server stderr:\n' + serverStderr.slice(-4000));
}
console.log(failures === 0 ? 'all checks passed' : `${failures} checks failed`);
process.exit(failures === 0 ? 0 : 1);
