import { runInNewContext } from 'node:vm';
import { describe, expect, it } from '@jest/globals';
import { UriTemplate as SdkUriTemplate } from '@modelcontextprotocol/server';
import fc from 'fast-check';
import { ToolsConfigurationError } from '../../lib/core/index.js';
import { CORE_MESSAGES } from '../../lib/core/core.messages.js';
import { MAX_TEMPLATE_URI_LENGTH, UriTemplate } from '../../lib/core/uri-template.js';

/**
 * lib/core's `UriTemplate.match` must answer exactly as the MCP SDK's: the URIs a resource
 * template serves through the invoker are the ones the SDK would route to it. Generated
 * templates (every operator, one or several names, exploded or not, URI-ish literals) are
 * matched against URIs made by expanding them with generated values (most match) and against
 * arbitrary strings and mutations of the expansions (most do not).
 */
const SEED = process.env.FC_SEED === undefined ? 20260728 : Number(process.env.FC_SEED);
const RUNS = 600;

/** What a match answers, or that it threw (the two classes throw different error types). */
function outcome(match: () => unknown): unknown {
  try {
    return { value: match() };
  } catch {
    return { threw: true };
  }
}

const lib = (template: string, uri: string) => outcome(() => new UriTemplate(template).match(uri));
const sdk = (template: string, uri: string) =>
  outcome(() => new SdkUriTemplate(template).match(uri));

// ---------------------------------------------------------------------------------------------
// Generators.

const OPERATORS = ['', '+', '#', '.', '/', '?', '&'] as const;

/** Characters of a URI outside `{` and `}`: unreserved, reserved and `%`. */
const LITERAL_CHARS = [
  ..."abcxyzABZ019-._~:/?#[]@!$&'()*+,;=%",
] as const satisfies readonly string[];

const literal = fc.string({ unit: fc.constantFrom(...LITERAL_CHARS), minLength: 1, maxLength: 6 });

const varName = fc.string({
  unit: fc.constantFrom(...'abcdxyzAZ09_'),
  minLength: 1,
  maxLength: 4,
});

interface GeneratedExpression {
  readonly operator: (typeof OPERATORS)[number];
  readonly names: readonly string[];
  /** The index of the name carrying the explode modifier, or -1. */
  readonly explodedAt: number;
}

const expression: fc.Arbitrary<GeneratedExpression> = fc
  .record({
    operator: fc.constantFrom(...OPERATORS),
    names: fc.array(varName, { minLength: 1, maxLength: 3 }),
    exploded: fc.boolean(),
    at: fc.nat(),
  })
  .map(({ operator, names, exploded, at }) => ({
    operator,
    names,
    explodedAt: exploded ? at % names.length : -1,
  }));

function expressionText({ operator, names, explodedAt }: GeneratedExpression): string {
  return `{${operator}${names.map((name, index) => (index === explodedAt ? `${name}*` : name)).join(',')}}`;
}

/** A template: literals and expressions in any order, at least one expression. */
const template = fc
  .array(fc.oneof(literal, expression), { minLength: 1, maxLength: 5 })
  .filter((parts) => parts.some((part) => typeof part !== 'string'))
  .map((parts) => ({
    text: parts.map((part) => (typeof part === 'string' ? part : expressionText(part))).join(''),
    names: parts.flatMap((part) => (typeof part === 'string' ? [] : part.names)),
  }));

/** Values a variable may take: plain segments most often, and characters that need encoding. */
const VALUE_CHARS = [...'abcXYZ0189-_.~', ...'/,&=?#% +:@!', 'é', '日'] as const;
const scalarValue = fc.oneof(
  { weight: 3, arbitrary: fc.stringMatching(/^[a-z0-9]{1,6}$/) },
  { weight: 2, arbitrary: fc.string({ unit: fc.constantFrom(...VALUE_CHARS), maxLength: 6 }) },
);
const variableValue = fc.oneof(
  { weight: 4, arbitrary: scalarValue },
  { weight: 1, arbitrary: fc.array(scalarValue, { minLength: 1, maxLength: 3 }) },
);

/** A template with a URI made by expanding it (with some variables left out). */
const expandedCase = template.chain(({ text, names }) =>
  fc
    .tuple(fc.tuple(...names.map((name) => fc.tuple(fc.constant(name), fc.option(variableValue)))))
    .map(([entries]) => {
      const values: Record<string, string | string[]> = {};
      for (const [name, value] of entries) if (value !== null) values[name] = value;
      return { template: text, uri: new SdkUriTemplate(text).expand(values) };
    }),
);

/** An expansion changed a little: a character dropped, inserted or replaced. */
const mutatedCase = expandedCase.chain(({ template: text, uri }) =>
  fc
    .record({
      at: fc.nat({ max: Math.max(0, uri.length) }),
      kind: fc.constantFrom('drop', 'insert', 'replace'),
      char: fc.constantFrom(...LITERAL_CHARS, ...VALUE_CHARS),
    })
    .map(({ at, kind, char }) => ({
      template: text,
      uri:
        kind === 'drop'
          ? uri.slice(0, at) + uri.slice(at + 1)
          : kind === 'insert'
            ? uri.slice(0, at) + char + uri.slice(at)
            : uri.slice(0, at) + char + uri.slice(at + 1),
    })),
);

/** A template against an arbitrary string. */
const arbitraryCase = fc.record({
  template: template.map(({ text }) => text),
  uri: fc.oneof(
    fc.string({ maxLength: 20 }),
    fc.string({ unit: fc.constantFrom(...LITERAL_CHARS, ...VALUE_CHARS), maxLength: 20 }),
  ),
});

/**
 * A template whose variables meet, with at most one separator between them
 * (`x://{name}.{ext}`, `x://{svc}-{day}`), and a URI made by writing values of separators and
 * letters in their places, unencoded: most URIs split in several ways, and the match must pick
 * the SDK's split.
 */
const SEPARATORS = ['', '.', '-', '/', ',', '&', '=', '?', '#'] as const;
const AMBIGUOUS_CHARS = [...'ab.-/,&=?#'] as const;

function rawExpansion({ operator, names }: GeneratedExpression, values: readonly string[]): string {
  switch (operator) {
    case '?':
    case '&':
      return `${operator}${names.map((name, index) => `${name}=${values[index]}`).join('&')}`;
    case '+':
      return values[0];
    default:
      return `${operator}${values[0]}`;
  }
}

const ambiguousCase = fc
  .array(
    fc.record({
      expression,
      separator: fc.constantFrom(...SEPARATORS),
      values: fc.array(fc.string({ unit: fc.constantFrom(...AMBIGUOUS_CHARS), maxLength: 5 }), {
        minLength: 3,
        maxLength: 3,
      }),
    }),
    { minLength: 2, maxLength: 4 },
  )
  .map((parts) => ({
    template: `x://${parts.map((part) => expressionText(part.expression) + part.separator).join('')}`,
    uri: `x://${parts.map((part) => rawExpansion(part.expression, part.values) + part.separator).join('')}`,
  }));

// ---------------------------------------------------------------------------------------------

describe('UriTemplate.match answers as the MCP SDK', () => {
  it('on URIs expanded from generated templates (most of them match)', () => {
    let matched = 0;
    let runs = 0;
    fc.assert(
      fc.property(expandedCase, ({ template: text, uri }) => {
        runs++;
        const ours = lib(text, uri);
        expect(ours).toEqual(sdk(text, uri));
        if ((ours as { value?: unknown }).value) matched++;
      }),
      { numRuns: RUNS, seed: SEED },
    );
    // The property is only worth something if the expansions do match: a good share must.
    expect(runs).toBe(RUNS);
    expect(matched).toBeGreaterThan(RUNS / 4);
  });

  it('on mutated expansions', () => {
    fc.assert(
      fc.property(mutatedCase, ({ template: text, uri }) => {
        expect(lib(text, uri)).toEqual(sdk(text, uri));
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('on arbitrary strings (most do not match)', () => {
    let matched = 0;
    fc.assert(
      fc.property(arbitraryCase, ({ template: text, uri }) => {
        const ours = lib(text, uri);
        expect(ours).toEqual(sdk(text, uri));
        if ((ours as { value?: unknown }).value) matched++;
      }),
      { numRuns: RUNS, seed: SEED },
    );
    expect(matched).toBeLessThan(RUNS / 2);
  });

  it('where variables meet, on URIs that split in several ways', () => {
    let matched = 0;
    fc.assert(
      fc.property(ambiguousCase, ({ template: text, uri }) => {
        const ours = lib(text, uri);
        expect(ours).toEqual(sdk(text, uri));
        if ((ours as { value?: unknown }).value) matched++;
      }),
      { numRuns: RUNS, seed: SEED },
    );
    expect(matched).toBeGreaterThan(RUNS / 5);
  });

  it('names the same variables as the SDK, in order', () => {
    fc.assert(
      fc.property(template, ({ text, names }) => {
        const ours = new UriTemplate(text);
        expect(ours.template).toBe(text);
        expect(ours.variables).toEqual(new SdkUriTemplate(text).variableNames);
        expect(ours.variables).toEqual(names);
        expect(Object.isFrozen(ours.variables)).toBe(true);
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('UriTemplate.isTemplate answers as the SDK on generated templates and arbitrary strings', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          template.map(({ text }) => text),
          fc.string({ maxLength: 12 }),
          fc.string({ unit: fc.constantFrom(...'{} \ta,*+'), maxLength: 8 }),
        ),
        (text) => {
          expect(UriTemplate.isTemplate(text)).toBe(SdkUriTemplate.isTemplate(text));
        },
      ),
      { numRuns: RUNS, seed: SEED },
    );
  });
});

describe('UriTemplate: bounded matching', () => {
  it.each([
    ['files://{name}.{ext}', 'files://', 'report.v2', '.pdf', { name: 'report.v2', ext: 'pdf' }],
    ['logs://{svc}-{day}', 'logs://', 'api-eu', '-2026', { svc: 'api-eu', day: '2026' }],
  ])(
    '%s matches a URI of MAX_TEMPLATE_URI_LENGTH characters, and none longer',
    (text, head, middle, tail, expected) => {
      const template = new UriTemplate(text);
      expect(template.match(`${head}${middle}${tail}`)).toEqual(expected);
      const fill = (length: number) =>
        `${head}${middle}${'x'.repeat(length - head.length - middle.length - tail.length)}${tail}`;
      const longest = fill(MAX_TEMPLATE_URI_LENGTH);
      expect(longest).toHaveLength(MAX_TEMPLATE_URI_LENGTH);
      expect(template.match(longest)).not.toBeNull();
      // The text matches the template, as the SDK says; its length alone refuses it.
      expect(new SdkUriTemplate(text).match(fill(MAX_TEMPLATE_URI_LENGTH + 1))).not.toBeNull();
      expect(template.match(fill(MAX_TEMPLATE_URI_LENGTH + 1))).toBeNull();
      expect(template.match(fill(1 << 20))).toBeNull();
    },
  );

  it('matches adversarial URIs of the longest length without backtracking', () => {
    // A regular expression of the SDK's shape backtracks through every way of splitting the URI
    // between meeting variables: n² ways for two, n⁴ for four, which at this length would run
    // for years. Here each match reads the URI once per part, so every one finishes long before
    // the ceiling (the ceiling stops the script, rather than hanging the suite, if one did not).
    const cases: Array<[template: string, filler: string, last: string]> = [
      ['files://{name}.{ext}', 'a.', '/'],
      ['logs://{svc}-{day}', '-', '/'],
      ['x://{a}{b}{c}{d}', 'a', '/'],
      ['x://{a*}{b*}.{c}', 'a,.', '/'],
      ['x://{+a}{+b}{+c}', 'a', '\n'],
      ['x://{?a,b,c}', 'b=&c=', '&'],
    ];
    const matched = cases.map(([text, filler, last]) => {
      const head = text.slice(0, text.indexOf('{'));
      const uri =
        `${head}${filler.repeat(MAX_TEMPLATE_URI_LENGTH)}`.slice(0, MAX_TEMPLATE_URI_LENGTH - 1) +
        last;
      const template = new UriTemplate(text);
      const match = runInNewContext(
        'match(uri)',
        { match: (s: string) => template.match(s), uri },
        {
          timeout: 20_000,
        },
      ) as unknown;
      return match !== null;
    });
    expect(matched).toEqual(cases.map(() => false));
  });
});

describe('UriTemplate: fixed examples', () => {
  const examples: Array<[string, string, Record<string, string | string[]> | null]> = [
    ['kb://articles/{slug}', 'kb://articles/reset-password', { slug: 'reset-password' }],
    ['kb://articles/{slug}', 'kb://articles/a%20b', { slug: 'a%20b' }],
    ['kb://articles/{slug}', 'kb://articles/a/b', null],
    ['kb://articles/{slug}', 'kb://articles/a,b', null],
    ['kb://articles/{slug}', 'kb://articles/', null],
    ['kb://articles/{slug}', 'kb://articlesX/x', null],
    ['kb://articles/{slug*}', 'kb://articles/a,b', { slug: ['a', 'b'] }],
    ['file:///{+path}', 'file:///etc/hosts', { path: 'etc/hosts' }],
    ['file:///{+path}', 'file:///a,b/c?d', { path: 'a,b/c?d' }],
    ['file:///{+path}', 'file:///', null],
    ['search{?q,limit}', 'search?q=cats&limit=10', { q: 'cats', limit: '10' }],
    ['search{?q,limit}', 'search?q=cats', null],
    ['search{?q,limit}', 'search?limit=10&q=cats', null],
    ['search{?q*}', 'search?q=a,b', { q: ['a', 'b'] }],
    ['users/{id}/posts{/post}', 'users/42/posts/7', { id: '42', post: '7' }],
    ['users/{id}/posts{/post}', 'users/42/posts', null],
    ['users/{id}/posts{/post}', 'users/42/posts/7/8', null],
    ['a{.ext}', 'a.json', { ext: 'json' }],
    // As the SDK: `{#var}` captures its `#` with the value (expanding { section: 'intro' } gives
    // `doc#intro`, matching it gives back '#intro').
    ['doc{#section}', 'doc#intro', { section: '#intro' }],
    ['list{?page}{&size}', 'list?page=2&size=20', { page: '2', size: '20' }],
  ];

  it.each(examples)('%s matches %s as %j, as the SDK does', (text, uri, expected) => {
    expect(new UriTemplate(text).match(uri)).toEqual(expected);
    expect(new SdkUriTemplate(text).match(uri)).toEqual(expected);
  });

  it('escapes the literal parts: regular expression characters match only themselves', () => {
    const template = new UriTemplate('kb://a.b+c(d)/{id}');
    expect(template.match('kb://a.b+c(d)/1')).toEqual({ id: '1' });
    expect(template.match('kb://aXb+c(d)/1')).toBeNull();
    expect(template.match('kb://a.bbc(d)/1')).toBeNull();
  });

  it('lists the variables of every expression, in order', () => {
    expect(new UriTemplate('users/{id}/posts{/post}{?q,limit}').variables).toEqual([
      'id',
      'post',
      'q',
      'limit',
    ]);
  });

  it('refuses an unclosed expression with a ToolsConfigurationError', () => {
    expect(() => new UriTemplate('kb://{slug')).toThrow(ToolsConfigurationError);
    expect(() => new UriTemplate('kb://{slug')).toThrow(
      CORE_MESSAGES.unclosedExpression('kb://{slug'),
    );
    expect(() => new SdkUriTemplate('kb://{slug')).toThrow();
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

  it('refuses an expression without a variable name, or with a name RFC 6570 does not allow', () => {
    for (const template of ['kb://{*}/{id}', '{+}', '{,}', '{a**}', '{a-b}']) {
      expect(() => new UriTemplate(template)).toThrow(ToolsConfigurationError);
    }
  });
});
