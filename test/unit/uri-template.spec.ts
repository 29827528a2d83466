import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { ToolsConfigurationError } from '../../lib/core/index.js';
import { CORE_MESSAGES } from '../../lib/core/core.messages.js';
import { MAX_TEMPLATE_URI_LENGTH, UriTemplate } from '../../lib/core/uri-template.js';

/**
 * lib/core's `UriTemplate.match` is the reverse of RFC 6570 expansion, with decoded values:
 * expanding a generated template with generated values (a reference expander below) and
 * matching the URI gives the values back; RFC 6570's own examples and rekog's `{path*}` match
 * as the table says; malformed escapes, missing parts and URIs of another shape do not match;
 * and matching work stays linear in the URI's length (a step counter, not a clock).
 */
const SEED = process.env.FC_SEED === undefined ? 20261202 : Number(process.env.FC_SEED);
const RUNS = 600;

// ---------------------------------------------------------------------------------------------
// A reference RFC 6570 expander (level 4, strings and lists; no prefix modifiers).

type Operator = '' | '+' | '#' | '.' | '/' | '?' | '&';
type Value = string | readonly string[];

const FIRST: Record<Operator, string> = {
  '': '',
  '+': '',
  '#': '#',
  '.': '.',
  '/': '/',
  '?': '?',
  '&': '&',
};
const SEPARATOR: Record<Operator, string> = {
  '': ',',
  '+': ',',
  '#': ',',
  '.': '.',
  '/': '/',
  '?': '&',
  '&': '&',
};
const UNRESERVED = /[A-Za-z0-9\-._~]/;
const RESERVED = /[:/?#[\]@!$&'()*+,;=]/;

/**
 * RFC 6570 §3.2.1's encoding: unreserved characters stay, reserved ones too for `+` and `#`,
 * anything else is UTF-8 percent-encoded. Unlike the RFC, a `%` is encoded in every mode (the
 * RFC keeps a value's `%XX` under `+` and `#`, which no matcher can tell from an escape).
 */
function encode(value: string, allowReserved: boolean): string {
  let out = '';
  for (const char of value) {
    if (UNRESERVED.test(char) || (allowReserved && RESERVED.test(char))) out += char;
    else {
      for (const byte of Buffer.from(char, 'utf8')) {
        out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
      }
    }
  }
  return out;
}

interface Spec {
  readonly name: string;
  readonly exploded: boolean;
}

function expandExpression(
  operator: Operator,
  specs: readonly Spec[],
  values: Readonly<Record<string, Value>>,
): string {
  const named = operator === '?' || operator === '&';
  const enc = (text: string) => encode(text, operator === '+' || operator === '#');
  const written: string[] = [];
  for (const { name, exploded } of specs) {
    const value = values[name];
    if (value === undefined || (Array.isArray(value) && value.length === 0)) continue;
    if (typeof value === 'string') {
      written.push(named ? `${name}=${enc(value)}` : enc(value));
    } else if (exploded) {
      const items = value.map((item) => (named ? `${name}=${enc(item)}` : enc(item)));
      written.push(items.join(SEPARATOR[operator]));
    } else {
      const joined = value.map(enc).join(',');
      written.push(named ? `${name}=${joined}` : joined);
    }
  }
  return written.length === 0 ? '' : FIRST[operator] + written.join(SEPARATOR[operator]);
}

/** A template as written: literals and expressions. */
type Piece = string | { readonly operator: Operator; readonly specs: readonly Spec[] };

const templateText = (pieces: readonly Piece[]) =>
  pieces
    .map((piece) =>
      typeof piece === 'string'
        ? piece
        : `{${piece.operator}${piece.specs.map(({ name, exploded }) => name + (exploded ? '*' : '')).join(',')}}`,
    )
    .join('');

const expand = (pieces: readonly Piece[], values: Readonly<Record<string, Value>>) =>
  pieces
    .map((piece) =>
      typeof piece === 'string' ? piece : expandExpression(piece.operator, piece.specs, values),
    )
    .join('');

/**
 * What matching gives back for a value: the string itself, a list's items joined as the URI
 * joins them (`,`, or `.` and `/` for exploded `{.var*}` and `{/var*}`); an empty list, as an
 * absent value, is no value.
 */
function expected(operator: Operator, spec: Spec, value: Value | undefined): string | undefined {
  if (value === undefined || typeof value === 'string') return value;
  if (value.length === 0) return undefined;
  const joiner = spec.exploded && (operator === '.' || operator === '/') ? operator : ',';
  return value.join(joiner);
}

// ---------------------------------------------------------------------------------------------
// Generators. Names are unique (`v0`, `v1`, …); query expressions (`{?…}` then `{&…}`) come
// last, as a template's query; values outside the query are never empty.

const PATH_OPERATORS = ['', '+', '#', '.', '/'] as const satisfies readonly Operator[];

/** Characters whose encoding in every mode is unique in a URI: letters, digits, and encoded ones. */
const PLAIN_CHARS = [...'abcXYZ0189-_~', ' ', '%', '"', '<', '^', '|', 'é', '日', '😀'] as const;
/** Any character: reserved ones too (raw under `+` and `#`), `.` and `,`. */
const ANY_CHARS = [...PLAIN_CHARS, ...'/,&=?#:@!+.;$'] as const;

const text = (chars: readonly string[], minLength: number) =>
  fc.string({ unit: fc.constantFrom(...chars), minLength, maxLength: 5 });

const value = (chars: readonly string[], minLength: number, list: boolean): fc.Arbitrary<Value> =>
  list
    ? fc.oneof(
        { weight: 3, arbitrary: text(chars, minLength) },
        { weight: 1, arbitrary: fc.array(text(chars, 1), { minLength: 1, maxLength: 3 }) },
      )
    : text(chars, minLength);

interface GeneratedCase {
  readonly pieces: readonly Piece[];
  readonly values: Readonly<Record<string, Value>>;
}

/**
 * A template and values for it. With `plain` values and a distinct delimiter between
 * expressions, every URI splits one way only; otherwise literals are any text and values hold
 * reserved characters, so a URI may split several ways.
 */
function generatedCase(plain: boolean): fc.Arbitrary<GeneratedCase> {
  const chars = plain ? PLAIN_CHARS : ANY_CHARS;
  const pathExpression = fc.record({
    operator: fc.constantFrom(...PATH_OPERATORS),
    size: fc.integer({ min: 1, max: 3 }),
    exploded: fc.boolean(),
  });
  const queryExpression = fc.record({
    size: fc.integer({ min: 1, max: 3 }),
    exploded: fc.boolean(),
  });
  const literal = plain
    ? fc.constant('')
    : fc.string({ unit: fc.constantFrom(...'ab/-.:@!,=&;'), maxLength: 3 });
  return fc
    .record({
      path: fc.array(fc.tuple(pathExpression, literal), { maxLength: 4 }),
      query: fc.array(queryExpression, { maxLength: 3 }),
    })
    .filter(({ path, query }) => path.length + query.length > 0)
    .chain(({ path, query }) => {
      let count = 0;
      const pieces: Piece[] = ['x://'];
      const draws: Array<[string, fc.Arbitrary<Value | undefined>]> = [];
      path.forEach(([{ operator, size, exploded }, between]) => {
        // Only the last name of several may take a list (the others would swallow its commas).
        const specs = Array.from({ length: size }, (_, at) => ({
          name: `v${count++}`,
          exploded: exploded && at === size - 1,
        }));
        pieces.push({ operator, specs }, plain ? `!${count}:` : between);
        for (const [at, { name }] of specs.entries()) {
          const last = at === size - 1;
          // A value holding the separator between it and the next name is ambiguous.
          const own = last ? chars : chars.filter((char) => char !== ',' && char !== '.');
          draws.push([name, value(own, 1, last)]);
        }
      });
      query.forEach(({ size, exploded }, index) => {
        const specs = Array.from({ length: size }, () => ({ name: `v${count++}`, exploded }));
        pieces.push({ operator: index === 0 ? '?' : '&', specs });
        for (const { name } of specs) {
          draws.push([name, fc.option(value(chars, 0, true), { nil: undefined })]);
        }
      });
      return fc.tuple(...draws.map(([, draw]) => draw)).map((drawn) => {
        const values: Record<string, Value> = {};
        drawn.forEach((value, index) => {
          if (value !== undefined) values[draws[index][0]] = value;
        });
        return { pieces, values };
      });
    });
}

function pathAndQuery(pieces: readonly Piece[]) {
  const at = pieces.findIndex(
    (piece) => typeof piece !== 'string' && ['?', '&'].includes(piece.operator),
  );
  return at < 0
    ? { path: pieces, query: [] }
    : { path: pieces.slice(0, at), query: pieces.slice(at) };
}

/** Whether the expansion is a URI a reader can take apart: a query starts at its first `?`. */
function readable({ pieces, values }: GeneratedCase): boolean {
  const { path, query } = pathAndQuery(pieces);
  const written = expand(query, values);
  return !expand(path, values).includes('?') && (written === '' || written.startsWith('?'));
}

/** What matching should give: each variable's expected value, absent ones left out. */
function expectedValues({ pieces, values }: GeneratedCase, only?: readonly Piece[]) {
  const want: Record<string, string> = {};
  for (const piece of only ?? pieces) {
    if (typeof piece === 'string') continue;
    for (const spec of piece.specs) {
      const found = expected(piece.operator, spec, values[spec.name]);
      if (found !== undefined) want[spec.name] = found;
    }
  }
  return want;
}

// ---------------------------------------------------------------------------------------------

describe('UriTemplate.match reverses RFC 6570 expansion, with decoded values', () => {
  it('gives back the values of a URI expanded from a generated template (one split each)', () => {
    const seen = { runs: 0, escaped: 0, lists: 0, absent: 0 };
    fc.assert(
      fc.property(generatedCase(true), (generated) => {
        fc.pre(readable(generated));
        const uri = expand(generated.pieces, generated.values);
        const template = new UriTemplate(templateText(generated.pieces));
        const want = expectedValues(generated);
        expect(template.match(uri)).toEqual(want);
        seen.runs++;
        if (uri.includes('%')) seen.escaped++;
        if (Object.values(generated.values).some(Array.isArray)) seen.lists++;
        if (Object.keys(want).length < template.variables.length) seen.absent++;
      }),
      { numRuns: RUNS, seed: SEED },
    );
    // The property is worth something only if the cases hold escapes, lists and absent values.
    expect(seen.runs).toBe(RUNS);
    expect(seen.escaped).toBeGreaterThan(RUNS / 2);
    expect(seen.lists).toBeGreaterThan(RUNS / 4);
    expect(seen.absent).toBeGreaterThan(RUNS / 10);
  });

  it('where a URI splits several ways, gives values that write the same URI, and the query exactly', () => {
    let several = 0;
    fc.assert(
      fc.property(generatedCase(false), (generated) => {
        fc.pre(readable(generated));
        const uri = expand(generated.pieces, generated.values);
        const match = new UriTemplate(templateText(generated.pieces)).match(uri);
        expect(match).not.toBeNull();
        const { path, query } = pathAndQuery(generated.pieces);
        // Decoded, the path the matched values write is the path the URI has.
        expect(decodeURIComponent(expand(path, match as Record<string, string>))).toBe(
          decodeURIComponent(expand(path, generated.values)),
        );
        // The query is read by name: its values are exactly the expected ones.
        const names = query.flatMap((piece) => (typeof piece === 'string' ? [] : piece.specs));
        const read = names.filter(({ name }) => name in match!);
        expect(Object.fromEntries(read.map(({ name }) => [name, match![name]]))).toEqual(
          expectedValues(generated, query),
        );
        if (JSON.stringify(match) !== JSON.stringify(expectedValues(generated))) several++;
      }),
      { numRuns: RUNS, seed: SEED },
    );
    // The property is worth something only if some URIs did split another way.
    expect(several).toBeGreaterThan(10);
  });
});

describe('UriTemplate.match: examples', () => {
  // RFC 6570 §3.2's values, and the URIs its examples expand to.
  const RFC: Array<[template: string, uri: string, values: Record<string, string>]> = [
    ['{var}', 'value', { var: 'value' }],
    ['{hello}', 'Hello%20World%21', { hello: 'Hello World!' }],
    ['{+path}/here', '/foo/bar/here', { path: '/foo/bar' }],
    ['here?ref={+path}', 'here?ref=/foo/bar', { path: '/foo/bar' }],
    ['{+hello}', 'Hello%20World!', { hello: 'Hello World!' }],
    ['{#var}', '#value', { var: 'value' }],
    ['X{#hello}', 'X#Hello%20World!', { hello: 'Hello World!' }],
    ['map?{x,y}', 'map?1024,768', { x: '1024', y: '768' }],
    ['{x,hello,y}', '1024,Hello%20World%21,768', { x: '1024', hello: 'Hello World!', y: '768' }],
    ['{+x,hello,y}', '1024,Hello%20World!,768', { x: '1024', hello: 'Hello World!', y: '768' }],
    ['{+path,x}/here', '/foo/bar,1024/here', { path: '/foo/bar', x: '1024' }],
    ['{#x,hello,y}', '#1024,Hello%20World!,768', { x: '1024', hello: 'Hello World!', y: '768' }],
    ['X{.var}', 'X.value', { var: 'value' }],
    ['X{.x,y}', 'X.1024.768', { x: '1024', y: '768' }],
    ['X{.list*}', 'X.red.green.blue', { list: 'red.green.blue' }],
    ['{/var}', '/value', { var: 'value' }],
    ['{/var,x}/here', '/value/1024/here', { var: 'value', x: '1024' }],
    ['{/list*}', '/red/green/blue', { list: 'red/green/blue' }],
    ['{list}', 'red,green,blue', { list: 'red,green,blue' }],
    ['{list*}', 'red,green,blue', { list: 'red,green,blue' }],
    ['{?x,y}', '?x=1024&y=768', { x: '1024', y: '768' }],
    ['{?x,y,empty}', '?x=1024&y=768&empty=', { x: '1024', y: '768', empty: '' }],
    ['{?list}', '?list=red,green,blue', { list: 'red,green,blue' }],
    ['{?list*}', '?list=red&list=green&list=blue', { list: 'red,green,blue' }],
    ['?fixed=yes{&x}', '?fixed=yes&x=1024', { x: '1024' }],
    ['{var}{?x}', 'value?x=1024', { var: 'value', x: '1024' }],
  ];

  it.each(RFC)('RFC 6570: %s matches %s', (text, uri, values) => {
    expect(new UriTemplate(text).match(uri)).toEqual(values);
  });

  const OURS: Array<[template: string, uri: string, values: Record<string, string>]> = [
    // rekog's own example: a catch-all gives the handler one string, as rekog 2.0.5 does.
    ['mcp://docs/{path*}', 'mcp://docs/a/b/c', { path: 'a/b/c' }],
    ['mcp://docs/{path*}', 'mcp://docs/readme.md', { path: 'readme.md' }],
    ['mcp://docs/{path*}', 'mcp://docs/a%20b/c%2Fd', { path: 'a b/c/d' }],
    ['mcp://docs{/path*}', 'mcp://docs/a/b/c', { path: 'a/b/c' }],
    ['file:///{+path}', 'file:///etc/hosts', { path: 'etc/hosts' }],
    ['file:///{+path}', 'file:///a,b/c?d', { path: 'a,b/c?d' }],
    // Decoded: UTF-8 escapes, `%2F` and `%25`; `+` is not a space (RFC 3986, not a form).
    ['kb://people/{name}', 'kb://people/Jo%C3%A3o', { name: 'João' }],
    ['kb://people/{name}', 'kb://people/João', { name: 'João' }],
    ['kb://people/{name}', 'kb://people/a+b', { name: 'a+b' }],
    ['kb://people/{name}', 'kb://people/a%2Fb%25', { name: 'a/b%' }],
    ['search{?q}', 'search?q=caf%C3%A9+cr%C3%A8me', { q: 'café+crème' }],
    ['kb://articles/{slug}', 'kb://articles/reset-password', { slug: 'reset-password' }],
    ['kb://articles/{slug}', 'kb://articles/a,b', { slug: 'a,b' }],
    // Where variables meet, the first takes as much as leaves a match for the rest.
    ['files://{name}.{ext}', 'files://report.v2.pdf', { name: 'report.v2', ext: 'pdf' }],
    ['logs://{svc}-{day}', 'logs://api-eu-2026', { svc: 'api-eu', day: '2026' }],
    ['x://{a}{b}', 'x://%C3%A9%C3%A9', { a: 'é', b: 'é' }],
    ['users/{id}/posts{/post}', 'users/42/posts/7', { id: '42', post: '7' }],
    ['a{.ext}', 'a.json', { ext: 'json' }],
    ['doc{#section}', 'doc#intro', { section: 'intro' }],
    ['x://{id}/{id}', 'x://7/7', { id: '7' }],
    ['file{.ext*}', 'file.tar.gz', { ext: 'tar.gz' }],
    ['map{/x,y}', 'map/1024/768', { x: '1024', y: '768' }],
    ['tags/{list}', 'tags/red,green', { list: 'red,green' }],
    ['{x,y}', '1,2,3', { x: '1', y: '2,3' }],
    // The query is read by name: any order, unknown parameters ignored, absent ones left out.
    ['search{?q,limit}', 'search?q=cats&limit=10', { q: 'cats', limit: '10' }],
    ['search{?q,limit}', 'search?limit=10&utm=x&q=cats', { q: 'cats', limit: '10' }],
    ['search{?q,limit}', 'search?q=cats', { q: 'cats' }],
    ['search{?q,limit}', 'search', {}],
    ['search{?q,limit}', 'search?', {}],
    ['search{?q}', 'search?q', { q: '' }],
    ['search{?q}', 'search?q=a&q=b', { q: 'a,b' }],
    ['list{?page}{&size}', 'list?size=20&page=2', { page: '2', size: '20' }],
    ['kb://{id}?format=json', 'kb://1?x=2&format=json', { id: '1' }],
  ];

  it.each(OURS)('%s matches %s', (text, uri, values) => {
    expect(new UriTemplate(text).match(uri)).toEqual(values);
  });

  it('gives values a string variables schema parses: an exploded value is one string', () => {
    const match = new UriTemplate('mcp://docs/{path*}{?q*}').match('mcp://docs/a/b/c?q=x&q=y');
    expect(match).toEqual({ path: 'a/b/c', q: 'x,y' });
    expect(Object.values(match!).every((value) => typeof value === 'string')).toBe(true);
  });

  const NONE: Array<[template: string, uri: string, why: string]> = [
    ['kb://people/{name}', 'kb://people/%E0%A4%A', 'a malformed escape'],
    ['kb://people/{name}', 'kb://people/%E0%A4', 'a truncated UTF-8 sequence'],
    ['kb://people/{name}', 'kb://people/%FF', 'bytes that are not UTF-8'],
    ['kb://people/{name}', 'kb://people/%zz', 'a % without hex digits'],
    ['search{?q}', 'search?q=%E0%A4%A', 'a malformed escape in the query'],
    ['kb://articles/{slug}', 'kb://articles/a/b', 'a / in a segment'],
    ['kb://articles/{slug}', 'kb://articles/', 'an empty value'],
    ['kb://articles/{slug}', 'kb://articlesX/x', 'another literal'],
    ['kb://articles/{slug}', 'other://articles/x', 'another scheme'],
    ['mcp://docs/{path*}', 'mcp://docs/', 'an empty catch-all'],
    ['mcp://docs{/path*}', 'mcp://docs', 'a missing segment'],
    ['users/{id}/posts{/post}', 'users/42/posts', 'a missing segment'],
    ['users/{id}/posts{/post}', 'users/42/posts/7/8', 'a segment too many'],
    ['file:///{+path}', 'file:///', 'an empty value'],
    ['map?{x,y}', 'map?1024', 'a name of several missing'],
    ['X{.x,y}', 'X.1024', 'a name of several missing'],
    ['x://{id}/{id}', 'x://7/8', 'a name read twice with two values'],
    ['kb://{id}?format=json', 'kb://1', 'a fixed query parameter missing'],
    ['kb://{id}?format=json', 'kb://1?format=xml', 'a fixed query parameter with another value'],
    ['search{?q}', 'search/x?q=1', 'text before the query the template does not have'],
    ['list{?page}{&size}', 'list&size=20', 'a query that does not start with ?'],
  ];

  it.each(NONE)('%s does not match %s (%s)', (text, uri) => {
    expect(new UriTemplate(text).match(uri)).toBeNull();
  });

  it('never throws on arbitrary strings, and gives only strings when it matches', () => {
    const templates = [...RFC, ...OURS].map(([text]) => new UriTemplate(text));
    fc.assert(
      fc.property(
        fc.constantFrom(...templates),
        fc.oneof(fc.string({ maxLength: 24 }), text([...ANY_CHARS, '%', '\n', 'x:/'], 0)),
        (template, uri) => {
          const match = template.match(uri);
          if (match !== null) {
            expect(Object.values(match).every((value) => typeof value === 'string')).toBe(true);
          }
        },
      ),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('escapes the literal parts: regular expression characters match only themselves', () => {
    const template = new UriTemplate('kb://a.b+c(d)/{id}');
    expect(template.match('kb://a.b+c(d)/1')).toEqual({ id: '1' });
    expect(template.match('kb://aXb+c(d)/1')).toBeNull();
    expect(template.match('kb://a.bbc(d)/1')).toBeNull();
  });
});

describe('UriTemplate: bounded matching', () => {
  it.each([
    ['files://{name}.{ext}', 'files://', 'report.v2', '.pdf', { name: 'report.v2', ext: 'pdf' }],
    ['logs://{svc}-{day}', 'logs://', 'api-eu', '-2026', { svc: 'api-eu', day: '2026' }],
    ['mcp://docs/{path*}', 'mcp://docs/', 'a/b', '/c', { path: 'a/b/c' }],
  ])(
    '%s matches a URI of MAX_TEMPLATE_URI_LENGTH characters, and none longer',
    (text, head, middle, tail, values) => {
      const template = new UriTemplate(text);
      expect(template.match(`${head}${middle}${tail}`)).toEqual(values);
      const fill = (length: number) =>
        `${head}${middle}${'x'.repeat(length - head.length - middle.length - tail.length)}${tail}`;
      const longest = fill(MAX_TEMPLATE_URI_LENGTH);
      expect(longest).toHaveLength(MAX_TEMPLATE_URI_LENGTH);
      expect(template.match(longest)).not.toBeNull();
      // A URI one character longer, of the same shape, is refused on its length alone.
      expect(template.match(fill(MAX_TEMPLATE_URI_LENGTH + 1))).toBeNull();
      expect(template.lastMatchSteps).toBe(0);
      expect(template.match(fill(1 << 20))).toBeNull();
    },
  );

  /**
   * Templates of many meeting variables against URIs that split in every way but match in none
   * (the last character refuses them). A backtracking matcher tries every split: n² of them for
   * two variables, n⁸ for eight. The step counter counts every character matching reads.
   */
  const ADVERSARIAL: Array<[template: string, filler: string, last: string]> = [
    ['files://{name}.{ext}', 'a.', '/'],
    ['logs://{svc}-{day}', '-', '/'],
    ['x://{a}.{b}.{c}.{d}.{e}.{f}.{g}.{h}', 'a.', '/'],
    ['x://{a}{b}{c}{d}{e}{f}{g}{h}', 'a', '/'],
    ['x://{a*}{b*}.{c}/{d*}', 'a,./', '#'],
    ['x://{+a}{+b}{+c}{#d}', 'a#', '\n'],
    ['x://{/a*}{/b*}{/c}{.d}', '/a.', '?'],
    ['x://{a}{b}%{c}', '%C3%A9', '/'],
    ['x://{a}{b}{?q,r,s}', 'a', '/'],
    ['x://{z}{?a,b,c}/{d}', '?a=&b=&c=', '&'],
  ];

  it.each(ADVERSARIAL)(
    '%s: an adversarial URI of the longest length takes steps linear in its length',
    (text, filler, last) => {
      const template = new UriTemplate(text);
      const head = text.slice(0, text.indexOf('{'));
      const steps = (length: number) => {
        const uri = `${head}${filler.repeat(length)}`.slice(0, length - 1) + last;
        expect(template.match(uri)).toBeNull();
        return template.lastMatchSteps;
      };
      const longest = steps(MAX_TEMPLATE_URI_LENGTH);
      const half = steps(MAX_TEMPLATE_URI_LENGTH / 2);
      // At most a few reads of the URI per character of the template: 8192 · 40 · 8 ≈ 2.6 M,
      // where n² alone is 67 M.
      expect(longest).toBeGreaterThan(0);
      expect(longest).toBeLessThanOrEqual(8 * (MAX_TEMPLATE_URI_LENGTH + 1) * text.length);
      // Twice the URI, about twice the work: linear, not quadratic.
      expect(longest / half).toBeLessThan(2.1);
    },
  );

  it('a match that succeeds takes linear steps too, and counts its decoding', () => {
    const template = new UriTemplate('x://{a}.{b}.{c}.{d}{?q}');
    const uri = (length: number) =>
      `x://${'%C3%A9'.repeat(length)}.b.c.d?q=${'%C3%A9'.repeat(length)}&other=1`;
    expect(template.match(uri(600))).toEqual({
      a: 'é'.repeat(600),
      b: 'b',
      c: 'c',
      d: 'd',
      q: 'é'.repeat(600),
    });
    const small = template.lastMatchSteps;
    template.match(uri(300));
    expect(small / template.lastMatchSteps).toBeLessThan(2.1);
  });
});

describe('UriTemplate: construction', () => {
  it('lists the variables of every expression, in order', () => {
    const template = new UriTemplate('users/{id}/posts{/post}{?q,limit*}');
    expect(template.variables).toEqual(['id', 'post', 'q', 'limit']);
    expect(Object.isFrozen(template.variables)).toBe(true);
    expect(template.template).toBe('users/{id}/posts{/post}{?q,limit*}');
  });

  it('refuses an unclosed expression with a ToolsConfigurationError', () => {
    expect(() => new UriTemplate('kb://{slug')).toThrow(ToolsConfigurationError);
    expect(() => new UriTemplate('kb://{slug')).toThrow(
      CORE_MESSAGES.unclosedExpression('kb://{slug'),
    );
  });

  it('UriTemplate.isTemplate: an expression is {non-space}, anything else is a plain URI', () => {
    expect(UriTemplate.isTemplate('kb://articles/{slug}')).toBe(true);
    expect(UriTemplate.isTemplate('search{?q}')).toBe(true);
    expect(UriTemplate.isTemplate('{+path}')).toBe(true);
    expect(UriTemplate.isTemplate('kb://handbook')).toBe(false);
    expect(UriTemplate.isTemplate('kb://{}')).toBe(false);
    expect(UriTemplate.isTemplate('kb://{ slug }')).toBe(false);
    expect(UriTemplate.isTemplate('kb://{slug')).toBe(false);
    expect(UriTemplate.isTemplate('kb://slug}')).toBe(false);
  });

  it('refuses an expression without a variable name, or with a name or operator RFC 6570 does not allow here', () => {
    for (const template of ['kb://{*}/{id}', '{+}', '{,}', '{a**}', '{a-b}', '{;x}', '{var:3}']) {
      expect(() => new UriTemplate(template)).toThrow(ToolsConfigurationError);
    }
  });
});
