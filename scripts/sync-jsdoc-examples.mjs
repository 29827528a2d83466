#!/usr/bin/env node
/**
 * Keeps the `@example` blocks of the JSDoc in lib/ identical to regions of the TypeScript files
 * under examples/jsdoc, which `npm run typecheck` compiles and `npm run lint` lints. A region is
 * named for the declaration whose example it is:
 *
 *   //#region ToolsModule.forRoot
 *   ToolsModule.forRoot({ registry, logCalls: true });
 *   //#endregion
 *
 * The key is the declaration's name, a member after a dot (`ToolsModule.forRoot`,
 * `McpEndpointOptions.bus`); never a file, so a declaration can move between files. A name
 * declared in two files of lib/ is qualified by the entry point that exports it, as TSDoc
 * references are: `toolwright/core!ToolInvoker.find`. Several regions of one key, in one file,
 * are that declaration's examples in order. The region's lines, dedented, are the example.
 * Examples document what users write against (the entry points' exports, their members, the
 * fields of the options they take); internals have none.
 *
 * `node scripts/sync-jsdoc-examples.mjs` (or `--check`) fails when an `@example` in lib/ differs
 * from its region, when an `@example` has no region, or when a region names no declaration.
 * `--write` rewrites the `@example` blocks from the regions, adds those a region has and the
 * JSDoc lacks, and removes those no region backs. `--root <dir>` and `--examples <dir>` point
 * at another copy of lib/ and of the examples (the test runs it on fixtures).
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import ts from 'typescript';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    write: { type: 'boolean', default: false },
    check: { type: 'boolean', default: false },
    root: { type: 'string', default: join(repo, 'lib') },
    examples: { type: 'string', default: join(repo, 'examples', 'jsdoc') },
  },
});
const write = args.write && !args.check;
const root = resolve(args.root);
const examplesDir = resolve(args.examples);
const PACKAGE = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')).name;
/** The width prettier keeps code to; a JSDoc collapses to one line only when it fits. */
const PRINT_WIDTH = 100;
/** A block tag at the start of a JSDoc line (`@param`, `@default`); `@Injectable()` is code. */
const TAG = /^@[a-z][\w-]*(\s|$)/;

/** What --write cannot settle (a region of no declaration, a malformed region). */
const problems = [];
/** Where lib/ and the regions differ, which --write settles. */
const mismatches = [];
const show = (file) => relative(process.cwd(), file) || '.';

function tsFiles(dir) {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return tsFiles(path);
      return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
    });
}

// ---------------------------------------------------------------------------------------------
// The regions.

/** The region's lines without their common indentation and surrounding blank lines. */
function dedent(lines) {
  const body = [...lines];
  while (body.length > 0 && body[0].trim() === '') body.shift();
  while (body.length > 0 && body.at(-1).trim() === '') body.pop();
  const indent = Math.min(
    ...body.filter((line) => line.trim() !== '').map((line) => /^\s*/.exec(line)[0].length),
  );
  return body.map((line) => (line.trim() === '' ? '' : line.slice(indent).trimEnd()));
}

/** Every region of the examples files: key → its regions, in the order of their file. */
function readRegions(dir) {
  const regions = new Map();
  for (const file of tsFiles(dir)) {
    const lines = readFileSync(file, 'utf8').split('\n');
    let open;
    lines.forEach((line, i) => {
      const start = /^\s*\/\/#region\s+(\S+)\s*$/.exec(line);
      const end = /^\s*\/\/#endregion(?:\s+(\S+))?\s*$/.exec(line);
      const where = `${show(file)}:${i + 1}`;
      if (start) {
        if (open) problems.push(`${where}: region ${start[1]} opens inside region ${open.key}`);
        open = { key: start[1], file, line: i + 1, where, from: i + 1 };
      } else if (end) {
        if (!open) return problems.push(`${where}: #endregion without a region`);
        if (end[1] && end[1] !== open.key) {
          problems.push(`${where}: #endregion ${end[1]} closes region ${open.key}`);
        }
        const text = dedent(lines.slice(open.from, i));
        if (text.length === 0) problems.push(`${open.where}: region ${open.key} is empty`);
        text.forEach((code, j) => {
          if (code.includes('*/')) {
            problems.push(`${show(file)}:${open.from + j + 1}: "*/" would end the JSDoc comment`);
          }
          if (TAG.test(code)) {
            problems.push(
              `${show(file)}:${open.from + j + 1}: a line starting "@tag" reads as a tag`,
            );
          }
        });
        const list = regions.get(open.key) ?? [];
        if (list.length > 0 && list[0].file !== file) {
          problems.push(`${where}: region ${open.key} is also in ${show(list[0].file)}`);
        }
        regions.set(open.key, [...list, { ...open, text }]);
        open = undefined;
      }
    });
    if (open) problems.push(`${open.where}: region ${open.key} is never closed`);
  }
  return regions;
}

// ---------------------------------------------------------------------------------------------
// The declarations of lib/, by name.

/** The name of a declaration the script keys, or undefined. */
function declaredName(node, sf) {
  if (
    (ts.isFunctionDeclaration(node) ||
      ts.isClassDeclaration(node) ||
      ts.isInterfaceDeclaration(node) ||
      ts.isTypeAliasDeclaration(node) ||
      ts.isEnumDeclaration(node) ||
      ts.isModuleDeclaration(node)) &&
    node.name
  ) {
    return node.name.text;
  }
  if (ts.isVariableStatement(node)) {
    const [first] = node.declarationList.declarations;
    return ts.isIdentifier(first.name) ? first.name.text : undefined;
  }
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  if (
    ts.isPropertySignature(node) ||
    ts.isMethodSignature(node) ||
    ts.isPropertyDeclaration(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node) ||
    ts.isPropertyAssignment(node) ||
    ts.isShorthandPropertyAssignment(node) ||
    ts.isEnumMember(node)
  ) {
    const name = node.name;
    if (ts.isIdentifier(name) || ts.isPrivateIdentifier(name)) return name.text;
    if (ts.isStringLiteral(name) || ts.isNumericLiteral(name)) return name.text;
    return name.getText(sf);
  }
  return undefined;
}

/** The JSDoc comment right before a node (the last `/**` of its leading comments). */
function jsDocOf(node, text) {
  const ranges = ts.getLeadingCommentRanges(text, node.pos) ?? [];
  return ranges.filter((range) => text.startsWith('/**', range.pos)).at(-1);
}

/**
 * One source file: its declarations by key (`Name`, `Name.member`), the JSDoc comments that
 * hold an `@example` (each with the key of its declaration, if any), and what it exports.
 */
function parseFile(file) {
  const text = readFileSync(file, 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const declarations = new Map();
  const docs = new Map();
  const visit = (node, prefix) => {
    const name = declaredName(node, sf);
    const key = name === undefined ? undefined : prefix ? `${prefix}.${name}` : name;
    if (key !== undefined) {
      const doc = jsDocOf(node, text);
      declarations.set(key, [...(declarations.get(key) ?? []), { node, doc }]);
      if (doc && !docs.get(doc.pos)?.key) docs.set(doc.pos, { range: doc, key });
    }
    // Every other JSDoc with an `@example` is reported, keyed or not.
    for (const range of ts.getLeadingCommentRanges(text, node.pos) ?? []) {
      if (text.startsWith('/**', range.pos) && !docs.has(range.pos)) {
        docs.set(range.pos, { range, key: undefined });
      }
    }
    ts.forEachChild(node, (child) => visit(child, key ?? prefix));
  };
  visit(sf, '');
  const examples = [...docs.values()].filter(({ range }) =>
    text.slice(range.pos, range.end).split('\n').some(isExampleLine),
  );
  return { file, text, sf, declarations, examples };
}

/** The file a relative specifier in `from` names: `./x.js` is x.ts, `./x` is x/index.ts. */
function moduleFile(from, specifier, files) {
  if (!specifier.startsWith('.')) return undefined;
  const base = resolve(dirname(from), specifier.replace(/\.js$/, ''));
  return [`${base}.ts`, join(base, 'index.ts')].find((path) => files.has(path));
}

/**
 * Where `name`, exported by `file`, is declared: `{ file, name }` of the declaration, following
 * `export { a as name } from`, `export *` and imports re-exported by name.
 */
function exportedDeclaration(file, name, files, seen = new Set()) {
  const parsed = files.get(file);
  if (!parsed || seen.has(`${file}#${name}`)) return undefined;
  seen.add(`${file}#${name}`);
  const follow = (specifier, exported) => {
    const target = moduleFile(file, specifier, files);
    return target && exportedDeclaration(target, exported, files, seen);
  };
  const stars = [];
  for (const statement of parsed.sf.statements) {
    if (ts.isExportDeclaration(statement)) {
      const from = statement.moduleSpecifier?.text;
      if (!statement.exportClause) {
        if (from) stars.push(from);
        continue;
      }
      if (!ts.isNamedExports(statement.exportClause)) continue;
      for (const element of statement.exportClause.elements) {
        if (element.name.text !== name) continue;
        const local = (element.propertyName ?? element.name).text;
        return from ? follow(from, local) : localDeclaration(file, local, files, seen);
      }
    } else if (
      declaredName(statement, parsed.sf) === name &&
      ts.getCombinedModifierFlags(
        ts.isVariableStatement(statement) ? statement.declarationList.declarations[0] : statement,
      ) & ts.ModifierFlags.Export
    ) {
      return { file, name };
    }
  }
  for (const from of stars) {
    const found = follow(from, name);
    if (found) return found;
  }
  return undefined;
}

/** The declaration of a local name of `file`: its own, or the one it imports. */
function localDeclaration(file, name, files, seen) {
  const parsed = files.get(file);
  if (parsed.declarations.has(name)) return { file, name };
  for (const statement of parsed.sf.statements) {
    const bindings = ts.isImportDeclaration(statement) && statement.importClause?.namedBindings;
    if (!bindings || !ts.isNamedImports(bindings)) continue;
    const element = bindings.elements.find((e) => e.name.text === name);
    if (!element) continue;
    const target = moduleFile(file, statement.moduleSpecifier.text, files);
    return (
      target &&
      exportedDeclaration(target, (element.propertyName ?? element.name).text, files, seen)
    );
  }
  return undefined;
}

/** The entry point file of `toolwright` or `toolwright/<sub>`. */
function entryFile(entry) {
  if (entry === PACKAGE) return join(root, 'index.ts');
  if (entry.startsWith(`${PACKAGE}/`))
    return join(root, entry.slice(PACKAGE.length + 1), 'index.ts');
  return undefined;
}

const ENTRY_ORDER = ['', 'core', 'mcp', 'ai', 'langchain', 'redis'];

/**
 * The declaration a key names: `{ file, key }`, or `{ error }`. `Name.member` must be declared
 * in one file of lib/; `entry!Name.member` is looked up from that entry point's exports.
 */
function resolveKey(key, files, byKey) {
  const bang = key.indexOf('!');
  if (bang !== -1) {
    const entry = key.slice(0, bang);
    const [name, ...members] = key.slice(bang + 1).split('.');
    const file = entryFile(entry);
    if (!file || !files.has(file)) return { error: `${entry} is not an entry point of lib/` };
    const found = exportedDeclaration(file, name, files);
    const local = found && [found.name, ...members].join('.');
    if (!found || !files.get(found.file).declarations.has(local)) {
      return { error: `${entry} exports no ${key.slice(bang + 1)}` };
    }
    return { file: found.file, key: local };
  }
  const where = byKey.get(key) ?? [];
  if (where.length === 0) return { error: 'no declaration in lib/ has this name' };
  if (where.length > 1) {
    const qualified = where.map((file) => qualifiedKey(file, key, files)).filter(Boolean);
    const hint = qualified.length ? `; qualify it: ${qualified.join(', ')}` : '';
    return { error: `declared in ${where.map(show).join(', ')}${hint}` };
  }
  return { file: where[0], key };
}

/** `entry!key` for a declaration an entry point exports, or undefined. */
function qualifiedKey(file, key, files) {
  const [name, ...members] = key.split('.');
  for (const sub of ENTRY_ORDER) {
    const entry = sub ? `${PACKAGE}/${sub}` : PACKAGE;
    const entryPath = entryFile(entry);
    if (!files.has(entryPath)) continue;
    const found = exportedDeclaration(entryPath, name, files);
    if (found?.file === file && found.name === name)
      return `${entry}!${[name, ...members].join('.')}`;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// JSDoc comments, line by line.

function isExampleLine(line) {
  return /^\s*(\/\*\*|\*)\s*@example(\s|$)/.test(line);
}

/** A comment's lines as `{ raw, content }`, content without the `/**`, ` * ` and `*\/`. */
function commentLines(comment) {
  const raw = comment.split('\n');
  if (raw.length === 1) {
    const content = comment
      .replace(/^\/\*\*/, '')
      .replace(/\*\/$/, '')
      .trim();
    return content ? [{ raw: null, content }] : [];
  }
  const lines = [];
  const first = raw[0].replace(/^\/\*\*/, '').trim();
  if (first) lines.push({ raw: null, content: first });
  for (const line of raw.slice(1, -1)) lines.push({ raw: line, content: stripStar(line) });
  const last = raw.at(-1).replace(/\*\/$/, '');
  if (last.trim()) lines.push({ raw: null, content: stripStar(last) });
  return lines;
}

function stripStar(line) {
  const match = /^\s*\*( ?)(.*)$/.exec(line);
  return (match ? match[2] : line.trim()).trimEnd();
}

/**
 * Splits a comment's content into its description and one segment per block tag, the tag's
 * lines up to the next tag (trailing blank lines included).
 */
function segments(lines) {
  const out = [{ tag: null, lines: [] }];
  for (const line of lines) {
    if (TAG.test(line.content)) out.push({ tag: /^@([\w-]+)/.exec(line.content)[1], lines: [] });
    out.at(-1).lines.push(line);
  }
  return out;
}

/** The code of an example segment: its lines after `@example`, without trailing blank lines. */
function exampleCode(segment) {
  const code = segment.lines.slice(1).map((line) => line.content);
  while (code.length > 0 && code.at(-1) === '') code.pop();
  return code;
}

/**
 * The comment with its examples replaced by `wanted` (arrays of code lines), in order: extra
 * examples are removed, missing ones appended. Returns the new text (or '' to remove it) and
 * what changed, one `{ index, kind }` per example: 'differs', 'unbacked', 'missing'.
 */
function rewriteComment(comment, indent, wanted) {
  const parts = segments(commentLines(comment));
  const changes = [];
  const render = (content) => ({
    raw: content === '' ? `${indent} *` : `${indent} * ${content}`,
    content,
  });
  let index = 0;
  const kept = [];
  for (const part of parts) {
    if (part.tag !== 'example') {
      kept.push(part);
      continue;
    }
    const code = exampleCode(part);
    const want = wanted[index];
    if (want === undefined) {
      changes.push({ index, kind: 'unbacked' });
    } else {
      if (code.join('\n') !== want.join('\n')) changes.push({ index, kind: 'differs' });
      const trailing = part.lines.slice(1 + code.length);
      kept.push({ tag: 'example', lines: [part.lines[0], ...want.map(render), ...trailing] });
    }
    index++;
  }
  for (; index < wanted.length; index++) {
    changes.push({ index, kind: 'missing' });
    const last = kept.findLastIndex((part) => part.tag === 'example');
    const at = last === -1 ? kept.length : last + 1;
    const before = kept[at - 1];
    if (before && before.lines.length > 0 && before.lines.at(-1).content !== '') {
      before.lines = [...before.lines, render('')];
    }
    const block = [render('@example'), ...wanted[index].map(render)];
    kept.splice(at, 0, {
      tag: 'example',
      lines: at < kept.length ? [...block, render('')] : block,
    });
  }
  if (changes.length === 0) return { text: comment, changes };
  let content = kept.flatMap((part) => part.lines);
  // No blank line at the ends, nor two in a row where an example was taken out.
  content = content.filter((line, i) => !(line.content === '' && content[i - 1]?.content === ''));
  while (content.length > 0 && content[0].content === '') content.shift();
  while (content.length > 0 && content.at(-1).content === '') content.pop();
  if (content.length === 0) return { text: '', changes };
  if (content.length === 1 && !TAG.test(content[0].content)) {
    const single = `/** ${content[0].content} */`;
    if (indent.length + single.length <= PRINT_WIDTH) return { text: single, changes };
  }
  const body = content.map((line) => line.raw ?? render(line.content).raw);
  return { text: ['/**', ...body, `${indent} */`].join('\n'), changes };
}

// ---------------------------------------------------------------------------------------------
// The run.

const regions = readRegions(examplesDir);
const files = new Map(tsFiles(root).map((file) => [file, parseFile(file)]));
const byKey = new Map();
for (const [file, parsed] of files) {
  for (const key of parsed.declarations.keys()) byKey.set(key, [...(byKey.get(key) ?? []), file]);
}

/** file → (key → { regions, where }), for every region that names a declaration. */
const targets = new Map();
for (const [key, list] of regions) {
  const found = resolveKey(key, files, byKey);
  if (found.error) {
    problems.push(`${list[0].where}: region ${key} names no declaration: ${found.error}`);
    continue;
  }
  const perFile = targets.get(found.file) ?? new Map();
  if (perFile.has(found.key)) {
    const other = perFile.get(found.key).name;
    problems.push(`${list[0].where}: region ${key} names the same declaration as ${other}`);
    continue;
  }
  perFile.set(found.key, { name: key, regions: list });
  targets.set(found.file, perFile);
}

/** The indentation of the line a position is on. */
function lineIndent(text, pos) {
  const start = text.lastIndexOf('\n', pos - 1) + 1;
  return /^[ \t]*/.exec(text.slice(start))[0];
}

function lineOf(text, pos) {
  return text.slice(0, pos).split('\n').length;
}

let rewritten = 0;
for (const [file, parsed] of files) {
  const { text, sf, declarations } = parsed;
  const edits = [];
  const synced = new Set();
  /** Syncs one JSDoc (or, with no range, makes one before `node`) with a key's regions. */
  const sync = (range, key, target, node) => {
    const wanted = target?.regions.map((region) => region.text) ?? [];
    const unique = byKey.get(key)?.length === 1;
    const label =
      key === undefined
        ? 'a JSDoc of no declaration'
        : (target?.name ?? (unique ? key : (qualifiedKey(file, key, files) ?? key)));
    const pos = range?.pos ?? text.lastIndexOf('\n', node.getStart(sf) - 1) + 1;
    const indent = lineIndent(text, range?.pos ?? node.getStart(sf));
    const comment = range ? text.slice(range.pos, range.end) : '/** */';
    const result = rewriteComment(comment, indent, wanted);
    const at = `${show(file)}:${lineOf(text, pos)}`;
    for (const { index, kind } of result.changes) {
      const region = target?.regions[index]?.where;
      if (kind === 'differs')
        mismatches.push(`${at}: the @example of ${label} differs from region ${region}`);
      if (kind === 'unbacked') mismatches.push(`${at}: an @example of ${label} has no region`);
      if (kind === 'missing')
        mismatches.push(`${at}: ${label} lacks the @example of region ${region}`);
    }
    if (!range) edits.push({ pos, end: pos, text: `${indent}${result.text}\n` });
    else if (result.text === '') {
      // The comment held examples only: take its lines out.
      const after = text.indexOf('\n', range.end);
      edits.push({ pos: text.lastIndexOf('\n', range.pos - 1) + 1, end: after + 1, text: '' });
    } else if (result.text !== comment) {
      edits.push({ pos: range.pos, end: range.end, text: result.text });
    }
  };
  for (const [key, target] of targets.get(file) ?? []) {
    const decls = declarations.get(key);
    const doc = decls.find((decl) => decl.doc)?.doc;
    if (doc) synced.add(doc.pos);
    sync(doc, key, target, decls[0].node);
  }
  // Every other JSDoc with an @example: no region backs it.
  for (const { range, key } of parsed.examples) if (!synced.has(range.pos)) sync(range, key);
  if (edits.length === 0 || !write) continue;
  let out = text;
  for (const edit of edits.sort((a, b) => b.pos - a.pos)) {
    out = out.slice(0, edit.pos) + edit.text + out.slice(edit.end);
  }
  writeFileSync(file, out);
  rewritten++;
}

/** Lines sorted by the file and line they start with (`path:line: …`). */
function byPlace(lines) {
  const place = (line) => /^(.*?):(\d+):/.exec(line) ?? [line, line, '0'];
  return [...lines].sort((a, b) => {
    const [, fileA, lineA] = place(a);
    const [, fileB, lineB] = place(b);
    return fileA === fileB ? Number(lineA) - Number(lineB) : fileA < fileB ? -1 : 1;
  });
}

const list = (lines) =>
  console.error(
    byPlace(lines)
      .map((line) => `  ${line}`)
      .join('\n'),
  );
if (write) console.log(`sync-jsdoc-examples: ${rewritten} file(s) under ${show(root)} rewritten.`);
if (problems.length > 0) list(problems);
if (!write && mismatches.length > 0) {
  list(mismatches);
  console.error('`node scripts/sync-jsdoc-examples.mjs --write` syncs the JSDoc with the regions.');
}
if (problems.length > 0 || (!write && mismatches.length > 0)) process.exit(1);
if (!write) console.log('sync-jsdoc-examples: every @example matches its compiled region.');
