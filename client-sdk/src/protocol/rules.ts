/**
 * Field rules: every writable field of the family data, defined once. The replication docs
 * (docs.ts), the REST request bodies (inputs.ts, used by the server's routes) and the SDK's
 * domain layer all validate with these, so REST, push and the domain layer accept and reject
 * exactly the same values.
 *
 * The rules (docs/api.md "Field rules"):
 * - names (lists, items, stores, sections, recipes, ingredients, products, units and unit
 *   abbreviations, families, user names) are trimmed (`String.prototype.trim`), then must match
 *   NAME_PATTERN (a visible character; no control character, bidirectional override or
 *   isolate, noncharacter or lone surrogate) and be 1..max characters long;
 * - free texts (`quantityNote`, `instructions`) are kept as given, 0..max characters;
 * - lengths count Unicode code points (as Postgres `varchar(n)` and JSON Schema `maxLength`
 *   do), not UTF-16 code units; no text may contain U+0000 (PostgreSQL cannot store it);
 * - references to records (`storeId`, `sectionId`, unit and product ids, …) are UUIDs in any
 *   letter case, stored in lower case;
 * - `quantity`: a number ≥ 0, at most 999999999.999, at most 3 decimal places;
 * - `position`: an integer 0..2147483647; `servings`: an integer 1..1000;
 * - `unitCategoryFlags`: an array over Count, Weight, Volume without repeats; `category`: one of them;
 * - pairs: at most one of `unitOfMeasureId`/`familyUnitOfMeasureId` and of
 *   `productId`/`familyProductId` may be set.
 *
 * Written with `zod/mini` (tree-shakable, no locales bundled): the SDK carries these rules
 * into browsers, where the whole of `zod` would cost more than RxDB itself. The server mixes
 * them freely with classic `zod` schemas (both are zod 4 core types).
 */
import * as z from 'zod/mini';
import { en } from 'zod/locales';
import { LIMITS } from './basics.js';

// English messages for zod's built-in checks (classic zod sets this itself; mini does not).
// An app that configured its own locale keeps it.
if (!z.config().localeError) z.config(en());

export const UNIT_CATEGORIES = ['Count', 'Weight', 'Volume'] as const;

/** Shop categories of products and sections (api-contract §10), in the order of the default
 *  sections, which carry them (views.ts `DEFAULT_SECTIONS`). */
export const CATEGORIES = [
  'produce',
  'bakery',
  'meat',
  'deli',
  'dairy',
  'frozen',
  'pantry',
  'snacks',
  'beverages',
  'household',
  'personal_care',
] as const;
export type Category = (typeof CATEGORIES)[number];
export type UnitCategory = (typeof UNIT_CATEGORIES)[number];

export { LOCALES, DEFAULT_LOCALE, isLocale, bestLocale, LIMITS, type Locale } from './basics.js';

export const QUANTITY_MAX = 999_999_999.999;
/** Upper bound of `position` fields (a Postgres `integer`). */
export const POSITION_MAX = 2_147_483_647;

export const SERVINGS_MIN = 1;
export const SERVINGS_MAX = 1000;
/** Servings a recipe copy may ask for (`POST /api/recipes/{id}/copy-to-list`, §10). */
export const COPY_SERVINGS_MIN = 1;
export const COPY_SERVINGS_MAX = 100;

export const NUL_MESSAGE = 'must not contain the NUL character (U+0000)';

export const UUID_PATTERN = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';
const UUID_RE = new RegExp(UUID_PATTERN);

/** Number of Unicode code points. */
export function codePointLength(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** True for a number written with at most 3 decimal places (JSON's shortest form). */
export function hasAtMost3Decimals(n: number): boolean {
  return Number.isFinite(n) && /^-?\d+(\.\d{1,3})?$/.test(String(n));
}

const noNul = (s: string) => !s.includes('\u0000');
/** JSON Schema form of `noNul` (free texts; NAME_PATTERN already refuses every control character). */
const NO_NUL_PATTERN = '^[^\\u0000]*$';

/**
 * Records the JSON Schema form of rules zod's refinements cannot export (code-point lengths,
 * the pair rules), so the OpenAPI document (zod's `toJSONSchema`, which merges registered
 * metadata) carries them. JSON Schema's `minLength`/`maxLength` count code points, as these do.
 */
function described<T extends z.ZodMiniType>(schema: T, jsonSchema: Record<string, unknown>): T {
  z.globalRegistry.add(schema, jsonSchema);
  return schema;
}
/** An array the API refuses with a repeated item: its JSON Schema says `uniqueItems`. */
export const uniqueItems = <T extends z.ZodMiniType>(schema: T): T => described(schema, { uniqueItems: true });
const lengthMessage = (min: number, max: number) =>
  min > 0 ? `must be ${min} to ${max} characters long` : `must be at most ${max} characters long`;

/**
 * What a name may hold (api-contract §13 "Names"), checked once it is trimmed (so a trailing
 * line feed is trimmed away, one inside the name is refused):
 * - at least one visible character: one that is not a separator (`\p{Z}`: spaces, line and
 *   paragraph separators), a format character (`\p{Cf}`: U+200B zero width space, U+FEFF, …), a
 *   default-ignorable code point (U+3164 Hangul filler, …) or a lone combining mark (`\p{M}`);
 * - no control character (`\p{Cc}`: NUL, TAB, LF, CR, DEL, C1 controls), no lone surrogate
 *   (`\p{Cs}`), no noncharacter (`\p{Noncharacter_Code_Point}`: U+FDD0–U+FDEF, U+xFFFE/U+xFFFF),
 *   and no bidirectional embedding, override or isolate (U+202A–U+202E, U+2066–U+2069). These two
 *   ranges are named by hand: the `Bidi_Control` property also holds the marks (U+200E LRM, U+200F
 *   RLM, U+061C ALM), which names in right-to-left scripts legitimately use.
 * Joiners (U+200D in emoji sequences) and marks stay allowed inside a name. The pattern is an
 * ECMAScript pattern with the `u` flag, as JSON Schema's `pattern` is; the OpenAPI document
 * carries it.
 */
export const NAME_PATTERN =
  '^(?=[\\s\\S]*[^\\p{Z}\\p{Cf}\\p{Default_Ignorable_Code_Point}\\p{M}\\p{Cc}])' +
  '[^\\p{Cc}\\p{Cs}\\p{Noncharacter_Code_Point}\\u202A-\\u202E\\u2066-\\u2069]*$';
const NAME_RE = new RegExp(NAME_PATTERN, 'u');
export const NAME_MESSAGE =
  'must contain a visible character and no control characters, bidirectional overrides or isolates, or noncharacters';

/** True when a (trimmed) name holds a visible character and no refused character. */
export function isValidNameText(s: string): boolean {
  return NAME_RE.test(s);
}

/** A name: trimmed, then NAME_PATTERN and 1..max code points. */
export function nameRule(max: number) {
  return described(
    z.string().check(
      z.trim(),
      z.regex(NAME_RE, { message: NAME_MESSAGE }),
      z.refine(noNul, { message: NUL_MESSAGE }),
      z.refine(
        (s) => {
          const n = codePointLength(s);
          return n >= 1 && n <= max;
        },
        { message: lengthMessage(1, max) },
      ),
    ),
    { minLength: 1, maxLength: max },
  );
}

/** A free text: kept as given, 0..max code points (min..max when given), no NUL. */
export function textRule(max: number, min = 0) {
  return described(
    z.string().check(
      z.refine(noNul, { message: NUL_MESSAGE }),
      z.refine(
        (s) => {
          const n = codePointLength(s);
          return n >= min && n <= max;
        },
        { message: lengthMessage(min, max) },
      ),
    ),
    { ...(min > 0 ? { minLength: min } : {}), maxLength: max, pattern: NO_NUL_PATTERN },
  );
}

/** A record id as stored: a lowercase canonical UUID (RxDB primary keys compare as strings). */
export const idRule = () =>
  z
    .guid({ message: 'must be a UUID' })
    .check(z.refine((s) => UUID_RE.test(s), { message: 'must be a lowercase UUID' }));

/** A reference to a record (or a client-chosen id in a REST body): a UUID in any letter case,
 *  taken in lower case. */
export const refRule = () => z.guid({ message: 'must be a UUID' }).check(z.toLowerCase());

export const quantityRule = () =>
  z
    .number()
    .check(
      z.minimum(0),
      z.maximum(QUANTITY_MAX),
      z.refine(hasAtMost3Decimals, { message: 'must have at most 3 decimal places' }),
    );

export const positionRule = () => z.int().check(z.minimum(0), z.maximum(POSITION_MAX));
export const servingsRule = () => z.int().check(z.minimum(SERVINGS_MIN), z.maximum(SERVINGS_MAX));
export const unitCategoryRule = () => z.enum(UNIT_CATEGORIES);
/** A product's or a section's shop category: a key of `CATEGORIES` or null. */
export const shopCategoryRule = () => z.nullable(z.enum(CATEGORIES));
export const unitCategoryFlagsRule = () =>
  uniqueItems(
    z.array(z.enum(UNIT_CATEGORIES)).check(
      z.maxLength(UNIT_CATEGORIES.length),
      z.refine((a) => new Set(a).size === a.length, { message: 'must not repeat a category' }),
    ),
  );

/** The rule of every writable field, by the name the docs and the REST bodies use. */
export const RULES = {
  listName: () => nameRule(LIMITS.listName),
  itemName: () => nameRule(LIMITS.itemName),
  storeName: () => nameRule(LIMITS.storeName),
  sectionName: () => nameRule(LIMITS.sectionName),
  recipeName: () => nameRule(LIMITS.recipeName),
  ingredientName: () => nameRule(LIMITS.ingredientName),
  productName: () => nameRule(LIMITS.productName),
  unitName: () => nameRule(LIMITS.unitName),
  abbreviation: () => nameRule(LIMITS.abbreviation),
  quantityNote: () => textRule(LIMITS.quantityNote),
  instructions: () => textRule(LIMITS.instructions),
  quantity: quantityRule,
  position: positionRule,
  servings: servingsRule,
  category: unitCategoryRule,
  shopCategory: shopCategoryRule,
  unitCategoryFlags: unitCategoryFlagsRule,
  ref: refRule,
  boolean: () => z.boolean(),
} as const;

/** Cross-field rule: at most one of two ids may be set (unit pair, product pair). */
export type Pair = readonly [string, string];
export const UNIT_PAIR = ['unitOfMeasureId', 'familyUnitOfMeasureId'] as const satisfies Pair;
export const PRODUCT_PAIR = ['productId', 'familyProductId'] as const satisfies Pair;

export function withPairRules<T extends z.ZodMiniType>(schema: T, pairs: readonly Pair[]): T {
  if (pairs.length === 0) return schema;
  // JSON Schema: not both of a pair set to a non-null value.
  const notBoth = ([a, b]: Pair) => ({
    not: { required: [a, b], properties: { [a]: { not: { type: 'null' } }, [b]: { not: { type: 'null' } } } },
  });
  return described(
    schema.check(
      ...pairs.map(([a, b]) =>
        z.superRefine((value: unknown, ctx) => {
          const v = value as Record<string, unknown>;
          if (v[a] != null && v[b] != null) {
            ctx.addIssue({ code: 'custom', input: value, path: [b], message: `${a} and ${b} cannot both be set` });
          }
        }),
      ),
    ) as T,
    { allOf: pairs.map(notBoth) },
  );
}
