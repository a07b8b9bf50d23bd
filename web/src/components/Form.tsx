import type { ComponentChildren, PartialInputHTMLAttributes } from 'preact';
import { useId } from 'preact/hooks';

type InputProps = Omit<PartialInputHTMLAttributes<HTMLInputElement>, 'label'> & { label: string; hint?: string };

/** A labelled input: the label is the accessible name (contract §9 names). */
export function Field({ label, hint, ...input }: InputProps) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input id={id} aria-describedby={hint ? `${id}-hint` : undefined} {...(input as Record<string, unknown>)} />
      {hint && (
        <small id={`${id}-hint`} class="hint">
          {hint}
        </small>
      )}
    </div>
  );
}

export function ErrorText({ error }: { error: string | null }) {
  return error ? (
    <p class="error" role="alert">
      {error}
    </p>
  ) : null;
}

export function Card({ children, title, level = 2 }: { children: ComponentChildren; title?: string; level?: 2 | 3 }) {
  const H = level === 2 ? 'h2' : 'h3';
  return (
    <section class="card">
      {title && <H>{title}</H>}
      {children}
    </section>
  );
}
