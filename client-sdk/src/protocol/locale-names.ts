/**
 * The default sections of a new store in each language of the app (api-contract §12): a
 * family's `locale` names the sections its new stores get. Same order and categories by
 * position as `DEFAULT_SECTIONS` (English) and `CATEGORIES`; the names read as aisle signs in
 * that language. The global catalog's product names per language are data:
 * `seeds/product-names.json`.
 */
import type { Locale } from './rules.js';
import { DEFAULT_SECTIONS } from './views.js';

/** One string per element of a tuple (a homomorphic mapped type keeps the tuple's length). */
type StringsLike<T extends readonly unknown[]> = { readonly [I in keyof T]: string };
/** One name per default section, position for position: a missing or extra name does not compile. */
type SectionNames = StringsLike<typeof DEFAULT_SECTIONS>;

export const DEFAULT_SECTION_NAMES: Readonly<Record<Locale, readonly string[]>> = {
  en: DEFAULT_SECTIONS,
  de: [
    'Obst & Gemüse',
    'Backwaren',
    'Fleisch & Fisch',
    'Feinkost',
    'Milchprodukte & Eier',
    'Tiefkühlkost',
    'Grundnahrungsmittel',
    'Süßes & Salziges',
    'Getränke',
    'Haushalt',
    'Körperpflege',
  ] satisfies SectionNames,
  fr: [
    'Fruits & légumes',
    'Boulangerie',
    'Viandes & poissons',
    'Traiteur',
    'Produits laitiers & œufs',
    'Surgelés',
    'Épicerie',
    'Snacks & confiseries',
    'Boissons',
    'Entretien',
    'Hygiène & beauté',
  ] satisfies SectionNames,
  es: [
    'Frutas y verduras',
    'Panadería',
    'Carnes y pescados',
    'Charcutería',
    'Lácteos y huevos',
    'Congelados',
    'Despensa',
    'Snacks y dulces',
    'Bebidas',
    'Limpieza y hogar',
    'Cuidado personal',
  ] satisfies SectionNames,
  'pt-BR': [
    'Hortifrúti',
    'Padaria',
    'Carnes e peixes',
    'Frios',
    'Laticínios e ovos',
    'Congelados',
    'Mercearia',
    'Doces e salgadinhos',
    'Bebidas',
    'Limpeza',
    'Higiene pessoal',
  ] satisfies SectionNames,
};

/** The names of a new store's default sections in a family's language. */
export function defaultSectionNames(locale: Locale): readonly string[] {
  return DEFAULT_SECTION_NAMES[locale];
}
