/**
 * `client.products` and `client.units`: the family's effective catalogs as the local database
 * holds them, in the order of `GET /api/products` and `GET /api/units` (the protocol's
 * `searchProducts` and `sortUnits`, which the server uses too).
 */
import { map, type Observable } from 'rxjs';
import { SEARCH_LIMIT_DEFAULT, SEARCH_LIMIT_MAX, searchProducts, sortUnits, type DocData } from '../protocol/index.js';
import { collection, invalidField, plain, type DomainContext } from './context.js';

export type ProductDoc = DocData<'products'>;
export type UnitDoc = DocData<'units'>;

export class Products {
  constructor(private readonly ctx: DomainContext) {}

  /** `GET /api/products?q=&limit=`: case-insensitive substring match, prefix matches first,
   *  then by name; `limit` 1..200 (default 50). Emits again on every change of the catalog. */
  search$(q = '', options: { limit?: number } = {}): Observable<ProductDoc[]> {
    const limit = options.limit ?? SEARCH_LIMIT_DEFAULT;
    if (!Number.isInteger(limit) || limit < 1 || limit > SEARCH_LIMIT_MAX) {
      throw invalidField('limit', `must be an integer from 1 to ${SEARCH_LIMIT_MAX}`);
    }
    if (typeof q !== 'string' || [...q].length > 200) throw invalidField('q', 'must be at most 200 characters long');
    return collection(this.ctx, 'products')
      .find()
      .$.pipe(
        map((docs) =>
          searchProducts(
            docs.map((d) => plain(d)),
            q,
            limit,
          ),
        ),
      );
  }
}

export class Units {
  constructor(private readonly ctx: DomainContext) {}

  /** `GET /api/units`: global units, then the family's. */
  all$(): Observable<UnitDoc[]> {
    return collection(this.ctx, 'units')
      .find()
      .$.pipe(map((docs) => sortUnits(docs.map((d) => plain(d)))));
  }
}
