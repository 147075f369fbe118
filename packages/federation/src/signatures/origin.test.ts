import { expect } from 'chai';
import { checkActivityOrigin, sameOrigin } from './origin.js';

const ALICE = 'https://remote.example/users/alice';

describe('sameOrigin', () => {
  it('compares scheme and host after normalization', () => {
    expect(sameOrigin('https://remote.example/a', 'https://REMOTE.example:443/b?c')).to.equal(true);
    expect(sameOrigin('https://bücher.example/a', 'https://xn--bcher-kva.example/b')).to.equal(true);
    expect(sameOrigin('https://remote.example/a', 'http://remote.example/a')).to.equal(false);
    expect(sameOrigin('https://remote.example/a', 'https://remote.example:8443/a')).to.equal(false);
  });

  it('refuses look-alike hosts, trailing dots and userinfo tricks', () => {
    expect(sameOrigin('https://example.com/a', 'https://example.com.evil.org/a')).to.equal(false);
    expect(sameOrigin('https://example.com/a', 'https://EXAMPLE.com./a')).to.equal(false);
    expect(sameOrigin('https://example.com./a', 'https://example.com./b')).to.equal(false);
    expect(sameOrigin('https://example.com/a', 'https://example.com@evil.org/a')).to.equal(false);
    expect(sameOrigin('https://evil.org/a', 'https://example.com@evil.org/a')).to.equal(false);
    expect(sameOrigin('https://evil.org/a', 'https://evil.org\\@example.com/a')).to.equal(true);
    expect(sameOrigin('https://example.com/a', 'not a url')).to.equal(false);
    expect(sameOrigin('javascript:alert(1)', 'javascript:alert(1)')).to.equal(false);
  });
});

describe('checkActivityOrigin', () => {
  const note = { id: 'https://remote.example/notes/1', type: 'Note', attributedTo: ALICE };

  it('accepts an activity whose actor signed it and whose ids are on its origin', () => {
    const create = {
      id: 'https://remote.example/activities/1',
      type: 'Create',
      actor: { id: ALICE },
      object: note,
    };
    expect(checkActivityOrigin(create, ALICE)).to.deep.equal({ ok: true });
  });

  it("refuses an actor that is not the signing key's owner", () => {
    const create = { type: 'Create', actor: 'https://remote.example/users/mallory', object: note };
    expect(checkActivityOrigin(create, ALICE)).to.deep.equal({
      ok: false,
      reason: "Activity actor does not match the signing key's owner",
    });
    expect(
      checkActivityOrigin({ type: 'Create', actor: [ALICE, ALICE], object: note }, ALICE),
    ).to.deep.include({
      ok: false,
    });
  });

  it('refuses an activity id or embedded object from another origin, look-alikes included', () => {
    const foreignId = {
      id: 'https://remote.example.evil.org/activities/1',
      type: 'Create',
      actor: ALICE,
      object: note,
    };
    expect(checkActivityOrigin(foreignId, ALICE)).to.deep.equal({
      ok: false,
      reason: "Activity id is not on the actor's origin",
    });
    for (const id of [
      'https://other.example/notes/1',
      'https://REMOTE.example./notes/1',
      'https://remote.example@other.example/n',
    ]) {
      const update = { type: 'Update', actor: ALICE, object: { ...note, id } };
      expect(checkActivityOrigin(update, ALICE)).to.deep.equal({
        ok: false,
        reason: "Embedded object is not on the actor's origin",
      });
    }
  });

  it("checks an Update of a Member against its group's origin, not the membership id's", () => {
    const member = {
      type: 'Member',
      id: 'https://joiner.example/join/1',
      actor: 'https://joiner.example/@bo',
    };
    const update = (group: string) => ({
      type: 'Update',
      actor: ALICE,
      object: { ...member, object: group, role: 'moderator' },
    });
    expect(checkActivityOrigin(update('https://remote.example/@club'), ALICE)).to.deep.equal({ ok: true });
    for (const group of ['https://joiner.example/@club', undefined]) {
      expect(checkActivityOrigin(update(group as string), ALICE)).to.deep.equal({
        ok: false,
        reason: "Embedded object is not on the actor's origin",
      });
    }
  });

  it("lets Follow, Like, Announce, Flag and Accept name someone else's object", () => {
    const foreign = { id: 'https://other.example/notes/9', type: 'Note' };
    for (const type of ['Follow', 'Like', 'Announce', 'Flag', 'Accept', 'Block', 'Add']) {
      expect(checkActivityOrigin({ type, actor: ALICE, object: foreign }, ALICE), type).to.deep.equal({
        ok: true,
      });
    }
  });

  it("checks an Undo's embedded activity as the actor's own", () => {
    const follow = {
      id: 'https://remote.example/follows/1',
      type: 'Follow',
      actor: ALICE,
      object: 'https://local.example/users/bob',
    };
    expect(checkActivityOrigin({ type: 'Undo', actor: ALICE, object: follow }, ALICE)).to.deep.equal({
      ok: true,
    });
    const someoneElses = { ...follow, actor: 'https://remote.example/users/mallory' };
    expect(checkActivityOrigin({ type: 'Undo', actor: ALICE, object: someoneElses }, ALICE)).to.deep.include({
      ok: false,
    });
    const elsewhere = { ...follow, id: 'https://other.example/follows/1' };
    expect(checkActivityOrigin({ type: 'Undo', actor: ALICE, object: elsewhere }, ALICE)).to.deep.include({
      ok: false,
    });
  });
});
