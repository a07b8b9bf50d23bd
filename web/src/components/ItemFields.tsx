/** Quantity, unit (filtered by the product's unit categories, or all), approximate, note:
 * the shared fields of a list item and a recipe ingredient. */
import { LIMITS } from '@family-shopping/client';
import { useId } from 'preact/hooks';
import type { Product, Unit } from '../lib/domain.ts';
import { formatNumber, parseQuantity, t } from '../lib/i18n.ts';

export interface Amount {
  quantity: string;
  unitId: string;
  approximate: boolean;
  note: string;
  showAllUnits: boolean;
}

export const EMPTY_AMOUNT: Amount = { quantity: '', unitId: '', approximate: false, note: '', showAllUnits: false };

export function amountOf(x: {
  quantity: number | null;
  unitOfMeasureId: string | null;
  familyUnitOfMeasureId: string | null;
  isApproximate: boolean;
  quantityNote: string | null;
}): Amount {
  return {
    quantity: x.quantity == null ? '' : formatNumber(x.quantity),
    unitId: x.unitOfMeasureId ?? x.familyUnitOfMeasureId ?? '',
    approximate: x.isApproximate,
    note: x.quantityNote ?? '',
    showAllUnits: false,
  };
}

/** The input fields an Amount stands for (both unit ids, one of them set). The quantity is
 * read in any of the locales' number formats ("1,5" or "1.5"); throws when it is no number. */
export function amountInput(a: Amount, units: Unit[]) {
  const unit = units.find((u) => u.id === a.unitId);
  const q = parseQuantity(a.quantity);
  if (Number.isNaN(q)) throw new Error(t('amount.badQuantity', { example: formatNumber(1.5) }));
  return {
    quantity: q,
    unitOfMeasureId: unit?.kind === 'global' ? unit.id : null,
    familyUnitOfMeasureId: unit?.kind === 'family' ? unit.id : null,
    isApproximate: a.approximate,
    quantityNote: a.note.trim() || null,
  };
}

export function formatAmount(
  x: {
    quantity: number | null;
    unitOfMeasureId: string | null;
    familyUnitOfMeasureId: string | null;
    isApproximate: boolean;
    quantityNote: string | null;
  },
  units: Unit[],
): string {
  const unit = units.find((u) => u.id === (x.unitOfMeasureId ?? x.familyUnitOfMeasureId));
  const q = x.quantity == null ? '' : `${x.isApproximate ? '≈' : ''}${formatNumber(x.quantity)}`;
  const amount = [q, unit && unit.code !== 'each' ? unit.abbreviation : unit && q === '' ? unit.abbreviation : '']
    .filter(Boolean)
    .join(' ');
  return [amount, x.quantityNote].filter(Boolean).join(' · ');
}

export function AmountFields({
  value,
  onChange,
  units,
  product,
}: {
  value: Amount;
  onChange: (a: Amount) => void;
  units: Unit[];
  product: Pick<Product, 'unitCategoryFlags'> | null;
}) {
  const id = useId();
  const flags = product?.unitCategoryFlags ?? [];
  const filtered =
    value.showAllUnits || flags.length === 0
      ? units
      : units.filter((u) => flags.includes(u.category) || u.id === value.unitId);
  const set = (patch: Partial<Amount>) => onChange({ ...value, ...patch });
  const typed = parseQuantity(value.quantity);
  return (
    <div class="amount">
      <div class="field-row">
        <div class="field">
          <label for={`${id}-q`}>{t('amount.quantity')}</label>
          {/* Text, not type=number: typed in the app's language ("1,5"), whatever the
              browser's; still a spinbutton to assistive technology (contract §9 names). */}
          <input
            id={`${id}-q`}
            type="text"
            role="spinbutton"
            inputMode="decimal"
            autocomplete="off"
            aria-valuemin={0}
            aria-valuenow={typed != null && !Number.isNaN(typed) ? typed : undefined}
            value={value.quantity}
            onInput={(e) => set({ quantity: e.currentTarget.value })}
          />
        </div>
        <div class="field">
          <label for={`${id}-u`}>{t('amount.unit')}</label>
          <select id={`${id}-u`} value={value.unitId} onChange={(e) => set({ unitId: e.currentTarget.value })}>
            <option value="">{t('amount.noUnit')}</option>
            {filtered.map((u) => (
              <option value={u.id}>{t('amount.unitOption', { name: u.name, abbreviation: u.abbreviation })}</option>
            ))}
          </select>
        </div>
      </div>
      {flags.length > 0 && (
        <label class="check">
          <input
            type="checkbox"
            checked={value.showAllUnits}
            onChange={(e) => set({ showAllUnits: e.currentTarget.checked })}
          />
          {t('amount.showAllUnits')}
        </label>
      )}
      <label class="check">
        <input
          type="checkbox"
          checked={value.approximate}
          onChange={(e) => set({ approximate: e.currentTarget.checked })}
        />
        {t('amount.approximate')}
      </label>
      <div class="field">
        <label for={`${id}-n`}>{t('amount.note')}</label>
        <input
          id={`${id}-n`}
          maxLength={LIMITS.quantityNote}
          value={value.note}
          onInput={(e) => set({ note: e.currentTarget.value })}
        />
      </div>
    </div>
  );
}
