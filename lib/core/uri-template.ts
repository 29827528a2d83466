import { CORE_MESSAGES } from './core.messages.js';
import { ToolsConfigurationError } from './errors.js';

/** One `{…}` expression of a template: its operator, its variable names, whether exploded (`*`). */
interface Expression {
  readonly operator: '' | '+' | '#' | '.' | '/' | '?' | '&';
  readonly names: readonly string[];
  readonly exploded: boolean;
}

/**
 * What a variable's value may hold: a segment (no `/` or `,`), a list of segments joined by
 * single commas, the rest of a URI (anything but a line break) or a query value (no `&`).
 */
type ValueKind = 'segment' | 'list' | 'rest' | 'query';

/** A template as a sequence of literal text and the variables between it. */
type Part =
  | { readonly literal: string }
  | { readonly kind: ValueKind; readonly name: string; readonly exploded: boolean };

const OPERATORS = new Set(['+', '#', '.', '/', '?', '&']);

/** An RFC 6570 variable name (percent-encoded characters aside). */
const VARIABLE = /^[A-Za-z0-9_][A-Za-z0-9_.]*$/;

/**
 * The longest URI a template is matched against: a longer one matches no template, whatever its
 * text. RFC 9110 asks that URIs of 8,000 octets be supported; resource URIs are far shorter.
 */
export const MAX_TEMPLATE_URI_LENGTH = 8192;

/** The values a URI gives a template's variables: a string, or a list for an exploded one. */
export type UriVariables = Record<string, string | string[]>;

/**
 * An RFC 6570 URI template of a resource template (`kb://articles/{slug}`), matched against the
 * URIs a client reads. Matching answers as the MCP SDK's `UriTemplate.match` does, which a
 * property test checks: `{var}` takes one segment (no `/` or `,`), `{+var}` and `{#var}` the
 * rest, `{.var}` and `{/var}` a prefixed segment, `{?a,b}` and `{&a}` query parameters in order;
 * values stay as they are in the URI (percent-encoded). Where two variables meet
 * (`{name}.{ext}`), the first takes as much as leaves a match for the rest.
 *
 * Matching does not backtrack: it reads a URI once per part of the template, so its work grows
 * with the URI's length, never with its square. A URI longer than
 * {@link MAX_TEMPLATE_URI_LENGTH} matches nothing.
 */
export class UriTemplate {
  /** The variable names, in the order the template names them. */
  readonly variables: readonly string[];
  private readonly parts: readonly Part[];

  constructor(readonly template: string) {
    const expressions: Expression[] = [];
    const parts: Part[] = [];
    let rest = template;
    while (rest.length > 0) {
      const open = rest.indexOf('{');
      if (open < 0) {
        parts.push({ literal: rest });
        break;
      }
      if (open > 0) parts.push({ literal: rest.slice(0, open) });
      const close = rest.indexOf('}', open);
      if (close < 0) {
        throw new ToolsConfigurationError(CORE_MESSAGES.unclosedExpression(template));
      }
      const expression = parseExpression(rest.slice(open + 1, close));
      if (expression.names.length === 0 || expression.names.some((name) => !VARIABLE.test(name))) {
        throw new ToolsConfigurationError(
          CORE_MESSAGES.templateExpression(template, rest.slice(open + 1, close)),
        );
      }
      expressions.push(expression);
      parts.push(...expressionParts(expression));
      rest = rest.slice(close + 1);
    }
    this.parts = mergeLiterals(parts);
    this.variables = Object.freeze(expressions.flatMap(({ names }) => names));
  }

  /** Whether a string holds a template expression (`{…}`), rather than being a plain URI. */
  static isTemplate(text: string): boolean {
    return /\{[^}\s]+\}/.test(text);
  }

  /** The variables of a URI this template matches, or `null` when it does not match. */
  match(uri: string): UriVariables | null {
    if (uri.length > MAX_TEMPLATE_URI_LENGTH) return null;
    const ends = partEnds(this.parts, uri);
    if (ends === null) return null;
    const variables: UriVariables = {};
    this.parts.forEach((part, index) => {
      if ('literal' in part) return;
      const value = uri.slice(index === 0 ? 0 : ends[index - 1], ends[index]);
      variables[part.name] = part.exploded && value.includes(',') ? value.split(',') : value;
    });
    return variables;
  }
}

function parseExpression(body: string): Expression {
  const operator = (OPERATORS.has(body[0]) ? body[0] : '') as Expression['operator'];
  return {
    operator,
    exploded: body.includes('*'),
    names: body
      .slice(operator.length)
      .split(',')
      .map((name) => name.replace('*', '').trim())
      .filter((name) => name.length > 0),
  };
}

/** What a URI holds in place of one expression (the SDK's regular expression of it, in parts). */
function expressionParts({ operator, names, exploded }: Expression): Part[] {
  const value = (kind: ValueKind): Part => ({ kind, name: names[0], exploded });
  switch (operator) {
    case '?':
    case '&':
      return names.flatMap((name, index) => [
        { literal: `${index === 0 ? operator : '&'}${name}=` },
        { kind: 'query', name, exploded },
      ]);
    case '':
      return [value(exploded ? 'list' : 'segment')];
    case '+':
    case '#':
      return [value('rest')];
    case '.':
      return [{ literal: '.' }, value('segment')];
    case '/':
      return [{ literal: '/' }, value(exploded ? 'list' : 'segment')];
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

const SLASH = 0x2f;
const COMMA = 0x2c;
const AMPERSAND = 0x26;

/** Whether a value of this kind may hold the character (a list's commas are checked apart). */
function holds(kind: ValueKind, code: number): boolean {
  switch (kind) {
    case 'segment':
    case 'list':
      return code !== SLASH && code !== COMMA;
    case 'query':
      return code !== AMPERSAND;
    case 'rest':
      // What `.` matches in a regular expression without the `s` flag.
      return code !== 0x0a && code !== 0x0d && code !== 0x2028 && code !== 0x2029;
  }
}

/**
 * For each start `i`, the end of the longest text from `i` a value of this kind could span: up
 * to the first character it cannot hold; for a list, also up to the first of two adjacent commas.
 */
function reaches(kind: ValueKind, uri: string): Int32Array {
  const n = uri.length;
  const reach = new Int32Array(n + 1);
  reach[n] = n;
  for (let i = n - 1; i >= 0; i--) {
    const code = uri.charCodeAt(i);
    if (kind === 'list' && code === COMMA) {
      reach[i] = uri.charCodeAt(i + 1) === COMMA ? i + 1 : reach[i + 1];
    } else {
      reach[i] = holds(kind, code) ? reach[i + 1] : i;
    }
  }
  return reach;
}

/**
 * Where each part of a template ends in `uri`, or `null` when the URI does not match. Each
 * variable takes the longest value that leaves a match for the parts after it, which is the
 * value a backtracking regular expression of the SDK's shape finds first.
 *
 * Two passes, each reading the URI once per part: from the last part to the first, the positions
 * from which the remaining parts match the rest of the URI; then from the first part, each
 * variable's end, the furthest that its value can reach and the next parts accept.
 */
function partEnds(parts: readonly Part[], uri: string): number[] | null {
  // Most URIs read are refused by the template's first literal (another scheme, another path).
  const first = parts[0];
  if (first !== undefined && 'literal' in first && !uri.startsWith(first.literal)) return null;
  const n = uri.length;
  const reach = new Map<ValueKind, Int32Array>();
  const reachOf = (kind: ValueKind) => {
    let found = reach.get(kind);
    if (found === undefined) reach.set(kind, (found = reaches(kind, uri)));
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
    if ('literal' in part) {
      const { literal } = part;
      for (let i = 0; i + literal.length <= n; i++) {
        if (matches[i + literal.length] === 1 && uri.startsWith(literal, i)) before[i] = 1;
      }
    } else {
      const ends = new Int32Array(n + 1);
      let last = -1;
      for (let end = 0; end <= n; end++) {
        // A list's value never ends with a comma.
        if (matches[end] === 1 && !(part.kind === 'list' && uri.charCodeAt(end - 1) === COMMA)) {
          last = end;
        }
        ends[end] = last;
      }
      const reached = reachOf(part.kind);
      for (let i = 0; i < n; i++) {
        // A list's value never starts with a comma either.
        if (part.kind === 'list' && uri.charCodeAt(i) === COMMA) continue;
        if (ends[reached[i]] > i) before[i] = 1;
      }
      furthest[k] = ends;
    }
    matches = before;
  }
  if (matches[0] !== 1) return null;
  const found: number[] = [];
  let at = 0;
  parts.forEach((part, k) => {
    at = 'literal' in part ? at + part.literal.length : furthest[k]![reachOf(part.kind)[at]];
    found.push(at);
  });
  return found;
}
