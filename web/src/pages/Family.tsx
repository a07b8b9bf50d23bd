/**
 * The family: its name and invite code (every member sees the code, to share it), members
 * and roles, invitations. Admin actions are online-only REST calls (`client.rest`).
 */
import { LIMITS } from '@family-shopping/client';
import { useEffect, useState } from 'preact/hooks';
import type { PageProps } from '../lib/router.tsx';
import { familyName$ } from '../lib/app.ts';
import { errorMessage, useAction } from '../lib/hooks.ts';
import { ErrorText, Field } from '../components/Form.tsx';
import { formatDate, t } from '../lib/i18n.ts';

interface Family {
  id: string;
  name: string;
  inviteCode: string;
}
interface Member {
  userId: string;
  userName: string;
  email: string;
  role: 'admin' | 'member';
  joinedAt: string;
}
interface Invite {
  id: string;
  email: string;
  createdAt: string;
  expiresAt: string;
}

export function FamilyPage({ client, session }: PageProps) {
  const admin = session.role === 'admin';
  const [family, setFamily] = useState<Family | null>(null);
  const [members, setMembers] = useState<Member[]>([]);
  const [invites, setInvites] = useState<Invite[]>([]);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [familyName, setFamilyName] = useState('');
  const [email, setEmail] = useState('');
  const [notice, setNotice] = useState<string | null>(null);
  const { error, run } = useAction();

  const load = async () => {
    try {
      const [f, m, i] = await Promise.all([
        client.rest<Family>('GET', '/api/family'),
        client.rest<Member[]>('GET', '/api/family/members'),
        admin ? client.rest<Invite[]>('GET', '/api/family/invites') : Promise.resolve([]),
      ]);
      setFamily(f);
      setFamilyName(f.name);
      familyName$.next(f.name);
      setMembers(m);
      setInvites(i);
      setLoadError(null);
    } catch (err) {
      setLoadError(errorMessage(err));
    }
  };
  useEffect(() => {
    void load();
    const again = () => void load();
    window.addEventListener('online', again);
    return () => window.removeEventListener('online', again);
  }, [client]);

  const act = (fn: () => Promise<unknown>, done?: string) =>
    run(async () => {
      await fn();
      setNotice(done ?? null);
      await load();
    });

  return (
    <>
      <h1>{t('nav.family')}</h1>
      {loadError && (
        <p class="error" role="alert">
          {loadError}{' '}
          <button type="button" onClick={() => void load()}>
            {t('family.tryAgain')}
          </button>
        </p>
      )}
      {family && (
        <>
          <section class="card">
            <h2>{family.name}</h2>
            <p>{t('family.codeIntro')}</p>
            <p class="code" aria-label={t('family.inviteCode')}>
              {family.inviteCode}
            </p>
            {admin && (
              <button
                type="button"
                onClick={() =>
                  confirm(t('family.newCodeConfirm')) &&
                  void act(() => client.rest('POST', '/api/family/invite-code'), t('family.newCodeDone'))
                }
              >
                {t('family.newCode')}
              </button>
            )}
            {admin && (
              <form
                class="row-form"
                onSubmit={(e) => {
                  e.preventDefault();
                  void act(
                    () => client.rest('PATCH', '/api/family', { name: familyName.trim() }),
                    t('family.nameSaved'),
                  );
                }}
              >
                <div class="grow">
                  <Field
                    label={t('register.familyName')}
                    required
                    maxLength={LIMITS.familyName}
                    value={familyName}
                    onInput={(e) => setFamilyName(e.currentTarget.value)}
                  />
                </div>
                <button type="submit">{t('family.saveName')}</button>
              </form>
            )}
          </section>
          {notice && <p class="notice">{notice}</p>}
          <ErrorText error={error} />
          <section class="card">
            <h2>{t('family.members')}</h2>
            <ul class="rows">
              {members.map((m) => (
                <li class="row member">
                  <span class="grow">
                    <strong>{m.userName}</strong>
                    {m.userId === session.user.id && t('family.you')}
                    <br />
                    <small class="hint">{m.email}</small>
                  </span>
                  {admin ? (
                    <>
                      <select
                        aria-label={t('family.roleOf', { name: m.userName })}
                        value={m.role}
                        onChange={(e) =>
                          void act(() =>
                            client.rest('PATCH', `/api/family/members/${m.userId}`, { role: e.currentTarget.value }),
                          )
                        }
                      >
                        <option value="admin">{t('family.admin')}</option>
                        <option value="member">{t('family.member')}</option>
                      </select>
                      {m.userId !== session.user.id && (
                        <button
                          type="button"
                          class="danger"
                          onClick={() =>
                            confirm(t('family.removeConfirm', { name: m.userName })) &&
                            void act(
                              () => client.rest('DELETE', `/api/family/members/${m.userId}`),
                              t('family.removed', { name: m.userName }),
                            )
                          }
                        >
                          {t('family.removeNamed', { name: m.userName })}
                        </button>
                      )}
                    </>
                  ) : (
                    <small class="tag">{t('family.roleTag', { role: m.role })}</small>
                  )}
                </li>
              ))}
            </ul>
          </section>
          {admin && (
            <section class="card">
              <h2>{t('family.invitations')}</h2>
              <form
                class="row-form"
                onSubmit={(e) => {
                  e.preventDefault();
                  const to = email.trim();
                  if (to)
                    void act(
                      async () => (await client.rest('POST', '/api/family/invites', { email: to }), setEmail('')),
                      t('family.inviteSent', { email: to }),
                    );
                }}
              >
                <div class="grow">
                  <Field
                    label={t('family.inviteByEmail')}
                    type="email"
                    required
                    value={email}
                    onInput={(e) => setEmail(e.currentTarget.value)}
                  />
                </div>
                <button class="primary" type="submit">
                  {t('family.sendInvite')}
                </button>
              </form>
              {invites.length === 0 ? (
                <p class="hint">{t('family.noInvites')}</p>
              ) : (
                <ul class="rows">
                  {invites.map((i) => (
                    <li class="row">
                      <span class="grow">
                        {i.email}
                        <br />
                        <small class="hint">{t('family.until', { date: formatDate(i.expiresAt) })}</small>
                      </span>
                      <button
                        type="button"
                        aria-label={t('family.resendTo', { email: i.email })}
                        onClick={() =>
                          void act(
                            () => client.rest('POST', `/api/family/invites/${i.id}/resend`),
                            t('family.resent', { email: i.email }),
                          )
                        }
                      >
                        {t('family.resend')}
                      </button>
                      <button
                        type="button"
                        aria-label={t('family.revokeNamed', { email: i.email })}
                        onClick={() =>
                          void act(() => client.rest('DELETE', `/api/family/invites/${i.id}`), t('family.revoked'))
                        }
                      >
                        {t('family.revoke')}
                      </button>
                    </li>
                  ))}
                </ul>
              )}
            </section>
          )}
        </>
      )}
    </>
  );
}
