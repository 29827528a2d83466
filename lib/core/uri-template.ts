import { CORE_MESSAGES } from './core.messages.js';
import { ToolsConfigurationError } from './errors.js';

type Operator = '' | '+' | '#' | '.' | '/' | '?' | '&';

/** One `{…}` expression of a template: its operator, its variable names, which are exploded (`*`). */
interface Expression {
  readonly operator: Operator;
  readonly names: readonly string[];
  readonly exploded: readonly boolean[];
}

/** A template as written: literal text and expressions, in order. */
type Token = { readonly literal: string } | { readonly expression: Expression };

/**
 * A part of a template matched in place: literal text, or one variable's value, which holds
 * none of the `stops` characters and is empty only where `empty` says so.
 */
type Part =
  | { readonly literal: string }
  | { readonly name: string; readonly stops: string; readonly empty: boolean };

/** A query parameter a template names: one a variable takes, or a fixed `name=value`. */
type Param = { readonly name: string; readonly value?: string };

const OPERATORS = new Set(['+', '#', '.', '/', '?', '&']);

/** What an expression writes before its first value, and between its values (RFC 6570 §3.2.1). */
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
const LINE_BREAKS = '\n\r\u2028\u2029';

/** An RFC 6570 variable name (percent-encoded characters aside). */
const VARIABLE = /^[A-Za-z0-9_][A-Za-z0-9_.]*$/;

/**
 * The longest URI a template is matched against: a longer one matches no template, whatever its
 * text. RFC 9110 asks that URIs of 8,000 octets be supported; resource URIs are far shorter.
 */
export const MAX_TEMPLATE_URI_LENGTH = 8192;

/**
 * The values a URI gives a template's variables, percent-decoded: one string per variable (an
 * exploded one's items joined as the URI joins them), so a `z.string()` parses each.
 */
export type UriVariables = Record<string, string>;

/**
 * An RFC 6570 URI template of a resource template (`kb://articles/{slug}`), matched against the
 * URIs a client reads: matching is the reverse of RFC 6570 expansion, and the values arrive
 * percent-decoded (`Jo%C3%A3o` is `João`; `+` stays `+`, as RFC 3986 reads it).
 *
 * - `{var}` takes one segment: no `/`, `?` or `#` (a list's `a,b` is the string `a,b`). `{/var}`
 *   and `{.var}` take one after their `/` or `.`; `{+var}` and `{#var}` (after its `#`) anything
 *   but a line break, `/` and `?` included.
 * - An exploded variable spans its items and gives them as one string: `{path*}` and `{/path*}`
 *   read `a/b/c` (as rekog's catch-all `{path*}` did), `{.ext*}` reads `.tar.gz` as `tar.gz`,
 *   `{list*}` reads `a,b` as `a,b`.
 * - In an expression of several names (`{x,y}`, `{/x,y}`, `{.x,y}`) each name but the last stops
 *   at the separator expansion writes between them; every name must be there.
 * - From the template's first `?` (a `{?…}` expression or a literal `?`) on, a query made of
 *   `{?…}`/`{&…}` expressions and fixed `name=value` pairs is read by name from the URI's first
 *   `?`: in any order, unknown parameters ignored; an absent parameter leaves its variable out
 *   (not `''`), `q=` or a bare `q` give `''`, a repeated one (`{?q*}` reading `q=a&q=b`) its
 *   values joined by `,`. A fixed pair must be present. Another query (`?q={term}`) is matched
 *   in place, as the rest of the template.
 * - Values outside the query are never empty. Where variables meet (`{name}.{ext}`), the first
 *   takes as much as leaves a match for the rest (`report.v2.pdf` is `report.v2` and `pdf`); a
 *   value never ends inside a `%XX` escape or a UTF-8 sequence. A variable named twice must read
 *   the same both times.
 * - A URI with a malformed escape in a value (`%E0%A4%A`, `%zz`, bytes that are not UTF-8) does
 *   not match: it is read as a URI nothing serves.
 *
 * Matching does not backtrack: it reads a URI a bounded number of times per part of the
 * template, so its work grows with the URI's length, never with its square
 * ({@link lastMatchSteps} counts it). A URI longer than {@link MAX_TEMPLATE_URI_LENGTH} matches
 * nothing.
 */
export class UriTemplate {
  /** The variable names, in the order the template names them. */
  readonly variables: readonly string[];
  /** What is matched in place: the whole template, or what comes before its query. */
  private readonly parts: readonly Part[];
  /** The query parameters read by name, when the template's query is read so. */
  private readonly query: readonly Param[] | undefined;
  private steps = 0;

  constructor(readonly template: string) {
    const tokens = tokenize(template);
    this.variables = Object.freeze(
      tokens.flatMap((token) => ('expression' in token ? token.expression.names : [])),
    );
    const split = splitQuery(tokens);
    this.parts = mergeLiterals((split?.path ?? tokens).flatMap(partsOf));
    this.query = split?.params;
  }

  /** Whether a string holds a template expression (`{…}`), rather than being a plain URI. */
  static isTemplate(text: string): boolean {
    return /\{[^}\s]+\}/.test(text);
  }

  /**
   * The characters the last {@link match} read (each pass over the URI counts its length): at
   * most a small multiple of the URI's length times the template's parts.
   */
  get lastMatchSteps(): number {
    return this.steps;
  }

  /** The variables of a URI this template matches, decoded, or `null` when it does not match. */
  match(uri: string): UriVariables | null {
    const meter = { steps: 0 };
    try {
      if (typeof uri !== 'string' || uri.length > MAX_TEMPLATE_URI_LENGTH) return null;
      return this.read(uri, meter);
    } finally {
      this.steps = meter.steps;
    }
  }

  private read(uri: string, meter: Meter): UriVariables | null {
    let path = uri;
    let query = '';
    if (this.query !== undefined) {
      const at = uri.indexOf('?');
      meter.steps += at < 0 ? uri.length : at;
      if (at >= 0) [path, query] = [uri.slice(0, at), uri.slice(at + 1)];
    }
    const values = matchParts(this.parts, path, meter);
    if (values === null) return null;
    const variables: Record<string, string> = {};
    for (const [name, raw] of values) {
      meter.steps += raw.length;
      if (!assign(variables, name, decoded(raw))) return null;
    }
    if (this.query !== undefined && !readQuery(this.query, query, variables, meter)) return null;
    return variables;
  }
}

/** Counts the characters matching reads. */
interface Meter {
  steps: number;
}

function tokenize(template: string): Token[] {
  const tokens: Token[] = [];
  let rest = template;
  while (rest.length > 0) {
    const open = rest.indexOf('{');
    if (open < 0) {
      tokens.push({ literal: rest });
      break;
    }
    if (open > 0) tokens.push({ literal: rest.slice(0, open) });
    const close = rest.indexOf('}', open);
    if (close < 0) {
      throw new ToolsConfigurationError(CORE_MESSAGES.unclosedExpression(template));
    }
    const body = rest.slice(open + 1, close);
    const expression = parseExpression(body);
    if (expression.names.length === 0 || expression.names.some((name) => !VARIABLE.test(name))) {
      throw new ToolsConfigurationError(CORE_MESSAGES.templateExpression(template, body));
    }
    tokens.push({ expression });
    rest = rest.slice(close + 1);
  }
  return tokens;
}

function parseExpression(body: string): Expression {
  const operator = (OPERATORS.has(body[0]) ? body[0] : '') as Operator;
  const specs = body
    .slice(operator.length)
    .split(',')
    .map((spec) => ({ name: spec.replace('*', '').trim(), exploded: spec.includes('*') }))
    .filter(({ name }) => name.length > 0);
  return {
    operator,
    names: specs.map(({ name }) => name),
    exploded: specs.map(({ exploded }) => exploded),
  };
}

/**
 * The template split at its query (its first `?`, literal or `{?…}`), when the query is made of
 * `{?…}`/`{&…}` expressions and fixed `name=value` pairs only, to be read by name; otherwise
 * `undefined`, and the whole template is matched in place.
 */
function splitQuery(tokens: readonly Token[]): { path: Token[]; params: Param[] } | undefined {
  const at = tokens.findIndex((token) =>
    'literal' in token ? token.literal.includes('?') : token.expression.operator === '?',
  );
  if (at < 0) return undefined;
  const path = tokens.slice(0, at);
  const rest = tokens.slice(at);
  const first = rest[0];
  if ('literal' in first) {
    const mark = first.literal.indexOf('?');
    if (mark > 0) path.push({ literal: first.literal.slice(0, mark) });
    rest[0] = { literal: first.literal.slice(mark) };
  }
  const params: Param[] = [];
  for (const token of rest) {
    if ('expression' in token) {
      const { operator, names } = token.expression;
      if (operator !== '?' && operator !== '&') return undefined;
      params.push(...names.map((name) => ({ name })));
      continue;
    }
    for (const pair of token.literal.split(/[?&]/)) {
      if (pair === '') continue;
      const eq = pair.indexOf('=');
      const value = decoded(eq < 0 ? '' : pair.slice(eq + 1));
      if (value === undefined) return undefined;
      params.push({ name: eq < 0 ? pair : pair.slice(0, eq), value });
    }
  }
  return { path, params };
}

/** What a URI holds in place of a token: its literal text, or each name's prefix and value. */
function partsOf(token: Token): Part[] {
  if ('literal' in token) return [token];
  const { operator, names, exploded } = token.expression;
  const named = operator === '?' || operator === '&';
  return names.flatMap((name, index) => {
    const lead = index === 0 ? FIRST[operator] : SEPARATOR[operator];
    const literal = named ? `${lead}${name}=` : lead;
    const value: Part = {
      name,
      stops: stopsOf(operator, exploded[index], index < names.length - 1),
      empty: named,
    };
    return literal === '' ? [value] : [{ literal }, value];
  });
}

/** The characters a value of an operator cannot hold (see {@link UriTemplate}). */
function stopsOf(operator: Operator, exploded: boolean, more: boolean): string {
  // A name followed by another stops at the separator between them (the last takes the rest).
  const comma = more && !exploded ? ',' : '';
  switch (operator) {
    case '+':
    case '#':
      return LINE_BREAKS + comma;
    case '?':
    case '&':
      return '&#';
    case '.':
      return more && !exploded ? '/?#.' : '/?#';
    case '/':
      return exploded ? '?#' : '/?#';
    case '':
      // `{path*}` spans segments, as path catch-alls do (`a/b/c`).
      return exploded ? '?#' : '/?#' + comma;
  }
}

function mergeLiterals(parts: readonly Part[]): Part[] {
  const merged: Part[] = [];
  for (const part of parts) {
    const last = merged.at(-1);
    if ('literal' in part && last !== undefined && 'literal' in last) {
      merged[merged.length - 1] = { literal: last.literal + part.literal };
    } else {
      merged.push(part);
    }
  }
  return merged;
}

/** The percent-decoded text, or `undefined` for a malformed escape. */
function decoded(raw: string): string | undefined {
  if (!raw.includes('%')) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}

/** Sets a variable, unless the value is malformed or differs from the one it already has. */
function assign(variables: Record<string, string>, name: string, value: string | undefined) {
  if (value === undefined) return false;
  if (Object.hasOwn(variables, name) && variables[name] !== value) return false;
  variables[name] = value;
  return true;
}

/** Reads the query's parameters by name into `variables`; `false` when the query does not match. */
function readQuery(
  params: readonly Param[],
  query: string,
  variables: Record<string, string>,
  meter: Meter,
): boolean {
  const wanted = new Set(params.map(({ name }) => name));
  const found = new Map<string, string[]>();
  meter.steps += query.length;
  for (const pair of query === '' ? [] : query.split('&')) {
    const eq = pair.indexOf('=');
    const name = eq < 0 ? pair : pair.slice(0, eq);
    if (!wanted.has(name)) continue;
    meter.steps += pair.length;
    const value = decoded(eq < 0 ? '' : pair.slice(eq + 1));
    if (value === undefined) return false;
    const values = found.get(name);
    if (values === undefined) found.set(name, [value]);
    else values.push(value);
  }
  for (const { name, value } of params) {
    const values = found.get(name);
    if (value !== undefined) {
      if (!values?.includes(value)) return false;
    } else if (values !== undefined && !assign(variables, name, values.join(','))) {
      return false;
    }
  }
  return true;
}

/**
 * For each start `i`, the end of the longest text from `i` a value could span: up to the first
 * character it cannot hold.
 */
function reaches(stops: string, uri: string, meter: Meter): Int32Array {
  const n = uri.length;
  const reach = new Int32Array(n + 1);
  reach[n] = n;
  meter.steps += n;
  for (let i = n - 1; i >= 0; i--) {
    reach[i] = stops.includes(uri[i]) ? i : reach[i + 1];
  }
  return reach;
}

/**
 * Whether a value may not end at position `i`: inside a `%XX` escape, before the escape of a
 * UTF-8 continuation byte (`%80`–`%BF`), or between the two halves of a surrogate pair.
 */
function splits(uri: string, i: number): boolean {
  const code = uri.charCodeAt(i - 1);
  if (code === 0x25 || (code >= 0xd800 && code <= 0xdbff)) return true;
  if (i >= 2 && uri.charCodeAt(i - 2) === 0x25) return true;
  return uri.charCodeAt(i) === 0x25 && '89ABab'.includes(uri[i + 1]);
}

/**
 * Each variable's raw text in `uri`, in the order of the parts, or `null` when the URI does not
 * match. Each variable takes the longest value that leaves a match for the parts after it.
 *
 * Two passes, each reading the URI once per part: from the last part to the first, the positions
 * from which the remaining parts match the rest of the URI; then from the first part, each
 * variable's end, the furthest that its value can reach and the next parts accept.
 */
function matchParts(
  parts: readonly Part[],
  uri: string,
  meter: Meter,
): Array<[string, string]> | null {
  // Most URIs read are refused by the template's first literal (another scheme, another path).
  const first = parts[0];
  if (first !== undefined && 'literal' in first && !uri.startsWith(first.literal)) return null;
  const n = uri.length;
  const reach = new Map<string, Int32Array>();
  const reachOf = (stops: string) => {
    let found = reach.get(stops);
    if (found === undefined) reach.set(stops, (found = reaches(stops, uri, meter)));
    return found;
  };
  // For each variable, the furthest end at or before each position that the parts after it accept.
  const furthest: Array<Int32Array | undefined> = [];
  // matches[i]: the parts after the current one match the URI from position `i` to its end.
  let matches = new Uint8Array(n + 1);
  matches[n] = 1;
  for (let k = parts.length - 1; k >= 0; k--) {
    const part = parts[k];
    const before = new Uint8Array(n + 1);
    meter.steps += 2 * (n + 1);
    if ('literal' in part) {
      const { literal } = part;
      for (let i = 0; i + literal.length <= n; i++) {
        if (matches[i + literal.length] !== 1) continue;
        meter.steps += literal.length;
        if (uri.startsWith(literal, i)) before[i] = 1;
      }
    } else {
      const ends = new Int32Array(n + 1);
      let last = -1;
      for (let end = 0; end <= n; end++) {
        if (matches[end] === 1 && !splits(uri, end)) last = end;
        ends[end] = last;
      }
      const reached = reachOf(part.stops);
      const least = part.empty ? 0 : 1;
      for (let i = 0; i <= n; i++) {
        if (ends[reached[i]] >= i + least) before[i] = 1;
      }
      furthest[k] = ends;
    }
    matches = before;
  }
  if (matches[0] !== 1) return null;
  const values: Array<[string, string]> = [];
  let at = 0;
  parts.forEach((part, k) => {
    if ('literal' in part) {
      at += part.literal.length;
      return;
    }
    const end = furthest[k]![reachOf(part.stops)[at]];
    values.push([part.name, uri.slice(at, end)]);
    at = end;
  });
  return values;
}
