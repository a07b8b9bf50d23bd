/**
 * A name box with suggestions from the local catalog (products.search$): works offline.
 * The box stays a plain textbox (contract §9 "Add item"); the suggestions are buttons below.
 */
import { LIMITS, type FamilyClient } from '@family-shopping/client';
import { useState } from 'preact/hooks';
import { domain, type Product } from '../lib/domain.ts';
import { useObservable } from '../lib/hooks.ts';
import { t } from '../lib/i18n.ts';

export interface Named {
  name: string;
  product: Product | null;
}

/** The product an item named `name` stands for: the chosen one, or an exact name match. */
export function productFor(v: Named, suggestions: Product[]): Product | null {
  if (v.product && v.product.name.toLowerCase() === v.name.trim().toLowerCase()) return v.product;
  return suggestions.find((p) => p.name.toLowerCase() === v.name.trim().toLowerCase()) ?? null;
}

export function productIds(p: Product | null) {
  return { productId: p?.kind === 'global' ? p.id : null, familyProductId: p?.kind === 'family' ? p.id : null };
}

export function useSuggestions(client: FamilyClient, q: string): Product[] {
  const query = q.trim();
  return useObservable(
    () => (query ? domain(client).products.search$(query, { limit: 6 }) : null),
    [client, query],
    [],
  );
}

export function ProductInput({
  id,
  label,
  value,
  onChange,
  suggestions,
  placeholder,
  showLabel,
}: {
  showLabel?: boolean;
  id: string;
  label: string;
  value: Named;
  onChange: (v: Named) => void;
  suggestions: Product[];
  placeholder?: string;
}) {
  const [open, setOpen] = useState(false);
  const shown = open && value.name.trim() !== '' ? suggestions.filter((p) => p.name !== value.product?.name) : [];
  return (
    <div class="product-input">
      <label for={id} class={showLabel ? undefined : 'sr-only'}>
        {label}
      </label>
      <input
        id={id}
        placeholder={showLabel ? placeholder : (placeholder ?? label)}
        autocomplete="off"
        maxLength={LIMITS.itemName}
        value={value.name}
        onInput={(e) => {
          onChange({ name: e.currentTarget.value, product: null });
          setOpen(true);
        }}
        onKeyDown={(e) => e.key === 'Escape' && setOpen(false)}
      />
      {shown.length > 0 && (
        <ul class="suggestions" aria-label={t('product.matching')}>
          {shown.map((p) => (
            <li>
              <button
                type="button"
                onClick={() => {
                  onChange({ name: p.name, product: p });
                  setOpen(false);
                  document.getElementById(id)?.focus();
                }}
              >
                {p.name}
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
