/**
 * `npm run test:rekog-port`: ports a `@rekog/mcp-nest` 2.0.5 application to the packed package by
 * docs/migrating-from-rekog-mcp-nest.md, and compares every answer. Needs Node 22.12 or later
 * (the CommonJS app `require`s the ESM build) and the npm registry (rekog, Nest 11).
 *
 * 1. The fixture, test/consumers/rekog-port/app, is a library app written as rekog's users write
 *    them: CommonJS (`module` commonjs, as `nest new` generated on Nest 11), `@McpController`
 *    classes with tools (progress, elicitation, a string result, no input, a throw), resources
 *    returning `{ contents }`, a `{path*}` template and a `{name}` one, a prompt, names left to
 *    the method's, the route as a guarded `McpHttpControllerFor` controller under the global
 *    prefix `api`, and a request-scoped provider injecting `REQUEST`.
 * 2. rekog: a copy `npm install`s the fixture's package.json and lockfile (Nest 11,
 *    `@rekog/mcp-nest` 2.0.5 and the MCP SDK 2.x packages it needs, `@nestjs/microservices`, zod
 *    4, TypeScript 5), is compiled with its own tsc (`npm run build`), started, and answers a
 *    fixed script of MCP requests from the official 2025-era client (`@modelcontextprotocol/sdk`
 *    1.x): initialize, the lists, every tools/call, resources/read and prompts/get, a member
 *    without a tool's scope listing and calling it, and the guarded route refusing a request
 *    without its key.
 * 3. toolwright: another copy (with the first one's node_modules) gets the guide's steps, read
 *    from the guide itself: each `<!-- port-shell -->` block's npm commands (with `toolwright`
 *    meaning the packed tarball), and each `<!-- port <file> -->` marker's two code blocks, the
 *    text before and after, replaced in that file (a "before" found nowhere, or more than once,
 *    fails the run naming the step). Then it is compiled, started, and asked the same script.
 * 4. Every answer must be equal, or its difference listed in the guide's table after
 *    `<!-- port-differences -->` (request and field per row, with the reason). An unlisted
 *    difference fails with a diff; so does a listed one that no longer occurs.
 *
 * Builds dist/ first (`npm run build`) only when it is missing. `--keep` keeps the temporary
 * folder and prints its path; `--record <app>` only starts an app built there and prints its
 * answers; `--guide <file>` reads the steps from another copy of the guide.
 */
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { cp, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  ensureBuilt,
  inTempDir,
  packTarball,
  root,
  run,
  startApp,
  stopwatch,
  within,
} from '../../scripts/consumer-app.mjs';

const { AbortSignal, URL, fetch } = globalThis;
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const FIXTURE = join(root, 'test', 'consumers', 'rekog-port', 'app');
const guideAt = process.argv.indexOf('--guide');
const GUIDE =
  guideAt === -1
    ? join(root, 'docs', 'migrating-from-rekog-mcp-nest.md')
    : resolve(process.argv[guideAt + 1]);
const ROUTE = '/api/mcp';
const KEY = { 'x-api-key': 'demo-key' };
/** A member without the scope `remove-book` needs. */
const VISITOR_KEY = { 'x-api-key': 'visitor-key' };
const CALL_TIMEOUT_MS = 10_000;
const NPM_FLAGS = ['--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'];

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  console.error(`test:rekog-port needs Node 22.12 or later; this is ${process.version}.`);
  process.exit(1);
}

const { lap, summary } = stopwatch();
await ensureBuilt();

// `--record <app>`: only start an app built already and print its answers (to debug a port).
const recordAt = process.argv.indexOf('--record');
if (recordAt !== -1) {
  console.log(JSON.stringify(await serveAndRecord(process.argv[recordAt + 1], 'app'), null, 2));
  process.exit(0);
}

// The guide first: a malformed marker fails before anything is installed.
const guide = parsePortGuide(await readFile(GUIDE, 'utf8'));
assert.ok(guide.steps.length > 0, 'the guide has no <!-- port --> steps');
assert.ok(guide.differences.length > 0, 'the guide has no <!-- port-differences --> table');

const keep = process.argv.includes('--keep');
const body = async (work) => {
  const rekogApp = join(work, 'rekog');
  await copyFixture(rekogApp);
  await run(npm, ['install', ...NPM_FLAGS], { cwd: rekogApp, timeoutMs: 300_000 });
  lap('install rekog');
  await build(rekogApp, 'rekog');
  lap('build rekog');
  const rekog = await serveAndRecord(rekogApp, 'rekog');
  lap('rekog answers');

  const tarball = await packTarball(join(work, 'pack'));
  lap('pack');
  const portApp = join(work, 'port');
  await copyFixture(portApp);
  // The app as it was installed: the guide's npm commands run on it, as in a real checkout.
  await cp(join(rekogApp, 'node_modules'), join(portApp, 'node_modules'), {
    recursive: true,
    verbatimSymlinks: true,
  });
  await cp(join(rekogApp, 'package-lock.json'), join(portApp, 'package-lock.json'));
  await applyGuide(portApp, tarball);
  lap('port by the guide');
  await build(portApp, 'toolwright');
  lap('build the port');
  const port = await serveAndRecord(portApp, 'toolwright');
  lap('toolwright answers');

  compare(rekog, port);
};
if (keep) {
  const work = await mkdtemp(join(tmpdir(), 'toolwright-rekog-port-'));
  console.log(`--keep: working in ${work}`);
  await body(work);
} else {
  await inTempDir('toolwright-rekog-port-', body);
}

console.log(summary('test:rekog-port'));

// ---------------------------------------------------------------------------------------------

/** The fixture's sources and configuration, without what a build or an install leaves. */
async function copyFixture(destination) {
  await cp(FIXTURE, destination, {
    recursive: true,
    filter: (source) => !/[/\\](node_modules|dist)([/\\]|$)/.test(source.slice(FIXTURE.length)),
  });
}

/** `npm run build` as the app defines it, with the app's own tsc. */
async function build(app, label) {
  await run(npm, ['run', 'build', '--silent'], { cwd: app }).catch((error) => {
    throw new Error(`${label}: the app does not compile:\n${error.message}`);
  });
  assert.ok(existsSync(join(app, 'dist', 'main.js')), `${label}: tsc wrote dist/main.js`);
}

/** Applies the guide's steps in order: npm commands, and text replacements in the app's files. */
async function applyGuide(app, tarball) {
  for (const step of guide.steps) {
    const where = `the guide's step "${step.heading}" (line ${step.line})`;
    if (step.kind === 'shell') {
      for (const args of step.commands) {
        const resolved = args.map((arg) => (arg === 'toolwright' ? tarball : arg));
        await run(npm, [...resolved, ...NPM_FLAGS], { cwd: app, timeoutMs: 300_000 }).catch(
          (error) => {
            throw new Error(`${where}: npm ${args.join(' ')} failed:\n${error.message}`);
          },
        );
      }
      continue;
    }
    const path = join(app, step.file);
    if (!existsSync(path)) throw new Error(`${where}: the app has no ${step.file}`);
    const text = await readFile(path, 'utf8');
    const replaced = replaceOnce(text, step.before, step.after);
    if (replaced.error) {
      throw new Error(
        `${where}: ${replaced.error} in ${step.file}.\n--- the step's "before" ---\n${step.before}\n--- ${step.file} now ---\n${text}`,
      );
    }
    await writeFile(path, replaced.text);
  }
}

/**
 * `before` replaced by `after` in `text`, once: exactly, or else line by line with leading
 * whitespace ignored (the after text then takes the indentation the match had). Answers
 * `{ error }` when `before` occurs nowhere or more than once.
 */
function replaceOnce(text, before, after) {
  const exact = text.split(before).length - 1;
  if (exact === 1) return { text: text.replace(before, () => after) };
  if (exact > 1) return { error: `the "before" text occurs ${exact} times` };
  const lines = text.split('\n');
  const wanted = before.split('\n').map((line) => line.trim());
  const starts = [];
  for (let i = 0; i + wanted.length <= lines.length; i++) {
    if (wanted.every((line, j) => lines[i + j].trim() === line)) starts.push(i);
  }
  if (starts.length !== 1) {
    return {
      error:
        starts.length === 0
          ? 'the "before" text is not found'
          : `the "before" text occurs ${starts.length} times`,
    };
  }
  const [start] = starts;
  const indent = (line) => line.match(/^\s*/)[0];
  const shift = indent(lines[start]).length - indent(before.split('\n')[0]).length;
  const reindented = after
    .split('\n')
    .map((line) =>
      line === '' ? line : shift >= 0 ? ' '.repeat(shift) + line : line.slice(-shift),
    );
  lines.splice(start, wanted.length, ...reindented);
  return { text: lines.join('\n') };
}

// ---------------------------------------------------------------------------------------------
// The guide.

/**
 * The port's steps and listed differences, from the guide's markers:
 * - `<!-- port-shell -->` then a code block: its `npm …` lines, run in the app;
 * - `<!-- port <file> -->` then two code blocks, ```` ```ts before ```` and ```` ```ts after ````:
 *   the text before and after, in `<file>` (docs/sync-examples.mjs leaves them to this test,
 *   which compiles them in the app);
 * - `<!-- port-differences -->` then a table whose first two cells are code spans: the request
 *   (as this runner labels it) and the field of its answer (dotted, `*` for any key; an empty
 *   code span or none for the whole answer). When the next two cells, rekog's and toolwright's
 *   value, are exactly `absent` or one code span of JSON, the difference must be that one (the
 *   JSON value, or a string that is the span's text).
 */
function parsePortGuide(markdown) {
  const lines = markdown.split('\n');
  const steps = [];
  const differences = [];
  let heading = '(before any heading)';
  /** The code blocks from line `i` on: `count` of them, with the line after the last. */
  const blocks = (i, count, marker) => {
    const found = [];
    for (; i < lines.length && found.length < count; i++) {
      if (/^<!-- port/.test(lines[i])) break;
      if (!lines[i].startsWith('```')) continue;
      const info = lines[i].slice(3).trim().split(/\s+/);
      const start = i + 1;
      for (i = start; i < lines.length && !lines[i].startsWith('```'); i++);
      if (i === lines.length) throw new Error(`guide line ${start}: unclosed code block`);
      found.push({ info, text: lines.slice(start, i).join('\n'), line: start });
    }
    if (found.length < count) {
      throw new Error(
        `guide: ${marker} wants ${count} code block(s) after it, found ${found.length}`,
      );
    }
    return found;
  };
  const cell = (text) => {
    const code = text.trim().match(/^`([^`]*)`/);
    return code ? code[1] : '';
  };
  /** A value cell that says exactly what it is: `absent`, or one code span of JSON. */
  const value = (text = '') => {
    const trimmed = text.trim();
    if (trimmed === 'absent') return { is: undefined };
    const code = trimmed.match(/^`([^`]*)`$/);
    if (!code) return undefined;
    try {
      return { is: JSON.parse(code[1]), text: code[1] };
    } catch {
      return undefined;
    }
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (/^#{1,6} /.test(line)) heading = line.replace(/^#+ /, '');
    const marker = line.match(/^<!-- (port(?:-shell|-differences)?)(?: (\S+))? -->$/);
    if (!marker) continue;
    const where = `"${heading}" (line ${i + 1})`;
    if (marker[1] === 'port-shell') {
      const [script] = blocks(i + 1, 1, `port-shell at ${where}`);
      const commands = script.text
        .split('\n')
        .map((command) => command.trim())
        .filter((command) => command.startsWith('npm '))
        .map((command) => command.split(/\s+/).slice(1));
      steps.push({ kind: 'shell', heading, line: i + 1, commands });
    } else if (marker[1] === 'port') {
      if (!marker[2]) throw new Error(`guide line ${i + 1}: <!-- port --> names no file`);
      const [before, after] = blocks(i + 1, 2, `port ${marker[2]} at ${where}`);
      for (const [block, word] of [
        [before, 'before'],
        [after, 'after'],
      ]) {
        if (!block.info.includes(word)) {
          throw new Error(
            `guide line ${block.line - 1}: the code block should be \`\`\`ts ${word}`,
          );
        }
      }
      steps.push({
        kind: 'edit',
        heading,
        line: i + 1,
        file: marker[2],
        before: before.text,
        after: after.text,
      });
    } else {
      let j = i + 1;
      while (j < lines.length && !lines[j].startsWith('|')) j++;
      for (j += 2; j < lines.length && lines[j].startsWith('|'); j++) {
        const cells = lines[j].split('|').slice(1, -1);
        differences.push({
          request: cell(cells[0]),
          field: cell(cells[1]),
          rekog: value(cells[2]),
          toolwright: value(cells[3]),
          line: j + 1,
        });
      }
    }
  }
  return { steps, differences };
}

// ---------------------------------------------------------------------------------------------
// The script of requests.

/** Lists keyed by name (or URI), so that their order is no difference. */
function keyed(list, key = 'name') {
  return Object.fromEntries(list.map((item) => [item[key], item]));
}

/** A request's answer: its result, or its JSON-RPC error's code and message. */
async function answer(what, promise) {
  try {
    return { result: JSON.parse(JSON.stringify(await within(CALL_TIMEOUT_MS, promise, what))) };
  } catch (error) {
    if (typeof error?.code !== 'number') throw error;
    return { error: { code: error.code, message: error.message } };
  }
}

/** Starts the built app, records its answers to the script, stops it. */
async function serveAndRecord(app, label) {
  const { base, output, stop } = await startApp(app);
  try {
    return await record(base);
  } catch (error) {
    console.error(`--- ${label}: the app's output ---\n${output()}--- end ---`);
    throw error;
  } finally {
    await stop();
  }
}

/** The answers of one app, by request. */
async function record(base) {
  const answers = {};
  const elicitations = [];
  const client = new Client(
    { name: 'rekog-port', version: '1.0.0' },
    { capabilities: { elicitation: {} } },
  );
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    elicitations.push(request.params);
    return { action: 'accept', content: { branch: 'riverside' } };
  });
  const transport = new StreamableHTTPClientTransport(new URL(`${base}${ROUTE}`), {
    requestInit: { headers: KEY },
  });
  await within(CALL_TIMEOUT_MS, client.connect(transport), 'initialize');
  try {
    answers.initialize = {
      protocolVersion: transport.protocolVersion,
      serverInfo: client.getServerVersion(),
      capabilities: client.getServerCapabilities(),
      instructions: client.getInstructions(),
    };

    const tools = await answer('tools/list', client.listTools());
    answers['tools/list'] = { result: { tools: keyed(tools.result.tools) } };

    const call = async (label, name, args, extra = {}) => {
      answers[`tools/call ${label}`] = await answer(
        `tools/call ${label}`,
        client.callTool({ name, arguments: args }, undefined, extra),
      );
    };
    await call('search-books', 'search-books', { query: 'rose' });
    await call('search-books (invalid)', 'search-books', { query: 'rose', limit: 50 });
    await call('get-book', 'get-book', { id: 'b-2' });
    await call('get-book (missing)', 'get-book', { id: 'b-9' });
    const progress = [];
    await call('export-catalog', 'export-catalog', {}, { onprogress: (p) => progress.push(p) });
    answers['tools/call export-catalog'].progress = progress;
    await call('reserve-book', 'reserve-book', { id: 'b-1' });
    answers['tools/call reserve-book'].elicitations = elicitations;
    await call('remove-book', 'remove-book', { id: 'b-4' });
    await call('libraryHours', 'libraryHours', {});
    await call('whoami', 'whoami', {});
    await call('no-such-tool', 'no-such-tool', {});

    const resources = await answer('resources/list', client.listResources());
    answers['resources/list'] = { result: { resources: keyed(resources.result.resources) } };
    const templates = await answer('resources/templates/list', client.listResourceTemplates());
    answers['resources/templates/list'] = {
      result: { resourceTemplates: keyed(templates.result.resourceTemplates) },
    };
    for (const uri of [
      'mcp://library/branches',
      'mcp://docs/a/b/c',
      'mcp://members/Jo%C3%A3o',
      'mcp://nothing/here',
    ]) {
      answers[`resources/read ${uri}`] = await answer(
        `resources/read ${uri}`,
        client.readResource({ uri }),
      );
    }

    const prompts = await answer('prompts/list', client.listPrompts());
    answers['prompts/list'] = { result: { prompts: keyed(prompts.result.prompts) } };
    answers['prompts/get recommendBooks'] = await answer(
      'prompts/get recommendBooks',
      client.getPrompt({
        name: 'recommendBooks',
        arguments: { genre: 'mystery', mood: 'curious' },
      }),
    );
  } finally {
    await client.close();
  }

  // A member without the scope: the tool is not listed, and a call is refused.
  const visitor = new Client({ name: 'rekog-port-visitor', version: '1.0.0' });
  await within(
    CALL_TIMEOUT_MS,
    visitor.connect(
      new StreamableHTTPClientTransport(new URL(`${base}${ROUTE}`), {
        requestInit: { headers: VISITOR_KEY },
      }),
    ),
    'initialize (visitor)',
  );
  try {
    const listed = await answer('tools/list (visitor)', visitor.listTools());
    answers['tools/list (visitor)'] = listed.result.tools.map((tool) => tool.name).sort();
    answers['tools/call remove-book (visitor)'] = await answer(
      'tools/call remove-book (visitor)',
      visitor.callTool({ name: 'remove-book', arguments: { id: 'b-4' } }),
    );
  } finally {
    await visitor.close();
  }

  // The route: refused without the key, and not served without the prefix.
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'rekog-port', version: '1.0.0' },
    },
  };
  const post = async (path, headers) => {
    const response = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify(initialize),
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
    });
    const text = await response.text();
    let parsed = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // an HTML or text body is recorded as it is
    }
    return { status: response.status, body: parsed };
  };
  answers[`POST ${ROUTE} without the key`] = await post(ROUTE, {});
  answers['POST /mcp (no prefix)'] = await post('/mcp', KEY);
  return answers;
}

// ---------------------------------------------------------------------------------------------
// The comparison.

/** Every difference between two JSON values, as `{ path, rekog, toolwright }`. */
function differences(a, b, path = []) {
  if (isDeepStrictEqual(a, b)) return [];
  const objects = (v) => v !== null && typeof v === 'object';
  if (objects(a) && objects(b) && Array.isArray(a) === Array.isArray(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
    return keys.flatMap((key) => differences(a[key], b[key], [...path, key]));
  }
  return [{ path, rekog: a, toolwright: b }];
}

/** Whether a listed field (dotted, `*` for any one key) covers a difference's path. */
function covers(field, path) {
  if (field === '') return true;
  const parts = field.split('.');
  return parts.length <= path.length && parts.every((part, i) => part === '*' || part === path[i]);
}

/** Whether a value cell allows `value`: it says nothing, or that value (as JSON, or as text). */
function says(cell, value) {
  return (
    !cell || isDeepStrictEqual(cell.is, value) || (cell.text !== undefined && cell.text === value)
  );
}

function compare(rekog, port) {
  const found = [];
  const labels = [...new Set([...Object.keys(rekog), ...Object.keys(port)])];
  for (const label of labels) {
    for (const diff of differences(rekog[label], port[label])) found.push({ label, ...diff });
  }
  const used = new Set();
  const unlisted = found.filter((diff) => {
    const rows = guide.differences.filter(
      (row) =>
        row.request === diff.label &&
        covers(row.field, diff.path) &&
        says(row.rekog, diff.rekog) &&
        says(row.toolwright, diff.toolwright),
    );
    rows.forEach((row) => used.add(row));
    return rows.length === 0;
  });
  const stale = guide.differences.filter((row) => !used.has(row));
  const show = (value) => (value === undefined ? '(absent)' : JSON.stringify(value, null, 2));
  const report = [
    ...unlisted.map(
      (diff) =>
        `✗ ${diff.label} :: ${diff.path.join('.') || '(the whole answer)'} differs and the guide does not list it\n` +
        `    rekog 2.0.5: ${show(diff.rekog).replaceAll('\n', '\n    ')}\n` +
        `    toolwright:  ${show(diff.toolwright).replaceAll('\n', '\n    ')}`,
    ),
    ...stale.map(
      (row) =>
        `✗ the guide lists "${row.request}" / "${row.field}" (line ${row.line}), but no difference matches it`,
    ),
  ];
  console.log(
    `compared ${labels.length} answers: ${found.length} differences, ${found.length - unlisted.length} listed in the guide`,
  );
  if (report.length > 0) {
    // Both answer sets, whole, beside the temporary folder (which goes).
    const files = {};
    for (const [name, answers] of Object.entries({ rekog, toolwright: port })) {
      files[name] = join(tmpdir(), `rekog-port-answers.${name}.json`);
      writeFileSync(files[name], `${JSON.stringify(answers, null, 2)}\n`);
    }
    throw new Error(
      `the port's answers are not rekog's, as the guide says:\n${report.join('\n')}\n\nAll the answers: ${files.rekog} and ${files.toolwright}`,
    );
  }
}
