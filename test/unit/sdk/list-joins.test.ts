// The lists whose live frames a client asks for (client/list-joins.ts): this tab's own joins and,
// on the replicating tab, the other tabs' (the live channel joins all of them on every connect).
import { expect } from 'chai';
import { ListJoins } from '../../../client-sdk/src/client/list-joins.js';

describe('SDK: list joins (client/list-joins.ts)', () => {
  it('own joins: once each, left once; they are what a new leader is told', () => {
    const j = new ListJoins();
    expect(j.joinOwn('L1')).to.equal(true);
    expect(j.joinOwn('L1'), 'already joined').to.equal(false);
    expect(j.joinOwn('L2')).to.equal(true);
    expect([...j.ownLists()]).to.deep.equal(['L1', 'L2']);
    expect(j.leaveOwn('L1')).to.equal(true);
    expect(j.leaveOwn('L1'), 'not joined any more').to.equal(false);
    expect(j.leaveOwn('L9'), 'never joined').to.equal(false);
    expect([...j.ownLists()]).to.deep.equal(['L2']);
  });

  it('other tabs’ joins: a list is left when the last tab that asked leaves it', () => {
    const j = new ListJoins();
    j.joinFor('tab-a', 'L1');
    j.joinFor('tab-b', 'L1');
    j.joinFor('tab-a', 'L1'); // asked again: still one tab
    expect(j.held('L1')).to.equal(true);
    expect(j.leaveFor('tab-a', 'L1'), 'tab-b still holds it').to.equal(false);
    expect(j.held('L1')).to.equal(true);
    expect(j.leaveFor('tab-c', 'L1'), 'a tab that never asked').to.equal(false);
    expect(j.leaveFor('tab-b', 'L1'), 'the last one').to.equal(true);
    expect(j.held('L1')).to.equal(false);
    expect(j.leaveFor('tab-b', 'L1'), 'nobody holds it any more').to.equal(false);
    expect(j.leaveFor('tab-a', 'L7'), 'a list nobody asked for').to.equal(false);
  });

  it('all() is every list someone here wants, own or another tab’s, each once', () => {
    const j = new ListJoins();
    j.joinOwn('L1');
    j.joinFor('tab-a', 'L1');
    j.joinFor('tab-a', 'L2');
    expect(j.all()).to.deep.equal(new Set(['L1', 'L2']));
    expect([j.held('L1'), j.held('L2'), j.held('L3')]).to.deep.equal([true, true, false]);
  });

  it('a list that is not the family’s is forgotten, own and others’; a stopped leader drops the others’', () => {
    const j = new ListJoins();
    j.joinOwn('L1');
    j.joinFor('tab-a', 'L1');
    j.joinOwn('L2');
    j.joinFor('tab-a', 'L3');
    j.forget('L1');
    expect(j.all()).to.deep.equal(new Set(['L2', 'L3']));
    expect(j.joinOwn('L1'), 'can be joined again').to.equal(true);
    j.clearOthers();
    expect(j.all()).to.deep.equal(new Set(['L1', 'L2']));
    expect([...j.ownLists()]).to.deep.equal(['L2', 'L1']);
  });
});
