// The copies of list details (server/lists/detail-cache.ts): a copy is answered while the family
// is at the version it was built at, the copies together never hold more bytes than allowed
// (LIST_DETAIL_CACHE_MB), and the least recently read copy goes first.
import { expect } from 'chai';
import { cached, DetailCache, type DetailRead } from '../../../server/lists/detail-cache.js';
import type { MembershipVersion } from '../../../server/auth/public.js';

const bytes = (text: string) => Buffer.from(text);
const keys = (cache: DetailCache, all: string[]) => all.filter((k) => cache.get(k) !== undefined);

describe('list detail copies', () => {
  describe('DetailCache: bounded by the size of the bodies, least recently read first out', () => {
    it('keeps a copy with its version, replaces it, and forgets it', () => {
      const cache = new DetailCache(100);
      expect(cache.get('f/a')).to.equal(undefined);
      cache.set('f/a', '7', bytes('aaaa'));
      expect(cache.get('f/a')).to.deep.equal({ version: '7', body: bytes('aaaa') });
      cache.set('f/a', '8', bytes('bb'));
      expect(cache.get('f/a')).to.deep.equal({ version: '8', body: bytes('bb') });
      cache.delete('f/a');
      expect(cache.get('f/a')).to.equal(undefined);
      cache.delete('f/a'); // deleting what is not there changes nothing
      expect(cache.get('f/a')).to.equal(undefined);
    });

    it('holds at most maxBytes, dropping the least recently read copies first', () => {
      const cache = new DetailCache(10);
      cache.set('a', '1', bytes('aaaa'));
      cache.set('b', '1', bytes('bbbb'));
      expect(keys(cache, ['a', 'b'])).to.deep.equal(['a', 'b']); // 8 bytes: both fit
      cache.get('a'); // a is now read more recently than b
      cache.set('c', '1', bytes('cccc')); // 12 bytes: b goes
      expect(keys(cache, ['a', 'b', 'c'])).to.deep.equal(['a', 'c']);
      cache.set('d', '1', bytes('dd')); // 10 bytes: all fit, exactly
      expect(keys(cache, ['a', 'c', 'd'])).to.deep.equal(['a', 'c', 'd']);
      cache.set('e', '1', bytes('eeeeeeee')); // 18 bytes: the oldest reads go until 10 or less remain
      expect(keys(cache, ['a', 'c', 'd', 'e'])).to.deep.equal(['d', 'e']);
    });

    it('counts a replaced or deleted copy out of the total', () => {
      const cache = new DetailCache(10);
      cache.set('a', '1', bytes('aaaaaaaa'));
      cache.set('a', '2', bytes('aaaaaaaa')); // replaces: still 8 bytes, not 16
      cache.set('b', '1', bytes('bb'));
      expect(keys(cache, ['a', 'b'])).to.deep.equal(['a', 'b']);
      cache.delete('a');
      cache.set('c', '1', bytes('cccccccc')); // 10 bytes with b
      expect(keys(cache, ['b', 'c'])).to.deep.equal(['b', 'c']);
    });

    it('keeps a body of exactly maxBytes, and never one larger (nor drops others for it)', () => {
      const cache = new DetailCache(6);
      cache.set('a', '1', bytes('aaa'));
      cache.set('big', '1', bytes('bbbbbbb'));
      expect(keys(cache, ['a', 'big'])).to.deep.equal(['a']);
      cache.set('full', '1', bytes('ffffff'));
      expect(keys(cache, ['a', 'full'])).to.deep.equal(['full']);
    });
  });

  describe('cached(): a copy answers while the family is at its version', () => {
    const who = { userId: 'u', familyId: 'f' };
    function setup() {
      const copies = new DetailCache(1_000);
      let version: string | null = '1';
      let member = true;
      const builds: string[] = [];
      const gone = new Set<string>();
      const membershipOf = async () => (member ? ({ version } as MembershipVersion) : undefined);
      const detailOf = async (_who: typeof who, listId: string): Promise<DetailRead> => {
        builds.push(listId);
        const membership = member ? ({ version } as MembershipVersion) : undefined;
        return { membership, body: membership && !gone.has(listId) ? bytes(`${listId}@${version}`) : null };
      };
      const read = cached(copies, membershipOf, detailOf);
      return {
        copies,
        builds,
        read: async (listId = 'l') => (await read(who, listId)).body?.toString() ?? null,
        write: () => (version = String(Number(version) + 1)),
        leave: () => (member = false),
        uncounted: () => (version = null),
        remove: (listId: string) => gone.add(listId),
      };
    }

    it('builds once per version of the family', async () => {
      const s = setup();
      expect(await s.read()).to.equal('l@1');
      expect(await s.read()).to.equal('l@1');
      expect(s.builds).to.deep.equal(['l']);
      s.write();
      expect(await s.read()).to.equal('l@2');
      expect(await s.read()).to.equal('l@2');
      expect(s.builds).to.deep.equal(['l', 'l']);
      expect(s.copies.get('f/l')).to.deep.equal({ version: '2', body: bytes('l@2') });
    });

    it('keeps no copy when the family has no version to check it against, and builds every read', async () => {
      const s = setup();
      s.uncounted();
      expect(await s.read()).to.equal('l@null');
      expect(await s.read()).to.equal('l@null');
      expect(s.builds).to.deep.equal(['l', 'l']);
      expect(s.copies.get('f/l')).to.equal(undefined);
    });

    it('answers no body to a reader without a membership, copy or not, and keeps no copy for a list that is gone', async () => {
      const s = setup();
      await s.read('doomed');
      expect(s.copies.get('f/doomed')).to.not.equal(undefined);
      s.remove('doomed');
      s.write();
      expect(await s.read('doomed')).to.equal(null);
      expect(s.copies.get('f/doomed')).to.equal(undefined);
      await s.read();
      s.leave();
      expect(await s.read()).to.equal(null);
      expect(await s.read('other')).to.equal(null);
      expect(s.copies.get('f/other')).to.equal(undefined);
    });
  });
});
