/** Lessons (lib/lesson.ts): the JSON schema, its one clear error per bad field, and lesson= sources. */
import { describe, expect, it } from 'vitest';
import { LessonError, lessonSource, loadLesson, parseLesson } from '../../src/ui/lib/lesson';

const good = { title: 'Entropy', hidden: ['config', 'findings'], cards: [{ card: 'temperature', questions: ['Which falls faster?'] }, { card: 'entropy-control', arms: ['a', 'c'] }] };

describe('parseLesson', () => {
  it('reads cards, arms, hidden controls and questions', () => {
    expect(parseLesson(good)).toEqual({
      title: 'Entropy',
      hidden: ['config', 'findings'],
      cards: [
        { card: 'temperature', questions: ['Which falls faster?'] },
        { card: 'entropy-control', arms: ['a', 'c'], questions: [] },
      ],
    });
  });

  it('takes a rung card too: the collapse card at the small rung', () => {
    expect(parseLesson({ title: 'Collapse', cards: [{ card: 'collapse', arms: ['a', 'b'] }] }).cards).toEqual([{ card: 'collapse', arms: ['a', 'b'], questions: [] }]);
  });

  const bad: [string, unknown, RegExp][] = [
    ['not an object', [], /^lesson: must be an object, got an array$/],
    ['no title', { ...good, title: '' }, /^lesson\.title: must be a non-empty string/],
    ['unknown field', { ...good, slides: [] }, /^lesson\.slides: unknown field/],
    ['no cards', { ...good, cards: [] }, /^lesson\.cards: must be a non-empty array/],
    ['unknown card', { ...good, cards: [{ card: 'tempreature' }] }, /^lesson\.cards\[0\]\.card: no Try-this card "tempreature" \(cards: first-look, temperature/],
    ['unknown arm', { ...good, cards: [good.cards[0], { card: 'temperature', arms: ['a', 'z'] }] }, /^lesson\.cards\[1\]\.arms\[1\]: card temperature has no arm "z"/],
    ['one arm', { ...good, cards: [{ card: 'temperature', arms: ['a'] }] }, /^lesson\.cards\[0\]\.arms: must name at least two arms/],
    ['bad question', { ...good, cards: [{ card: 'temperature', questions: ['ok', 3] }] }, /^lesson\.cards\[0\]\.questions\[1\]: must be a non-empty string, got 3$/],
    ['unknown control', { ...good, hidden: ['config', 'sidebar'] }, /^lesson\.hidden\[1\]: no control "sidebar" to hide$/],
    ['card field typo', { ...good, cards: [{ card: 'temperature', question: 'x' }] }, /^lesson\.cards\[0\]\.question: unknown field/],
  ];
  for (const [what, json, msg] of bad)
    it(`rejects ${what}, naming the field`, () => {
      expect(() => parseLesson(json)).toThrow(LessonError);
      expect(() => parseLesson(json)).toThrow(msg);
    });
});

describe('lesson= sources', () => {
  it('takes inline JSON or a relative .json path, nothing else', () => {
    expect(lessonSource(' {"title":"x"}')).toEqual({ json: '{"title":"x"}' });
    expect(lessonSource('lessons/entropy.json')).toEqual({ path: 'lessons/entropy.json' });
    for (const v of ['https://evil.example/l.json', '../secret.json', '/abs.json', 'lesson.txt']) expect(() => lessonSource(v), v).toThrow(/^lesson: must be lesson JSON or a relative \.json path/);
  });

  it('loads a file relative to the base, naming the file in errors', async () => {
    const files: Record<string, string> = { '/app/l.json': JSON.stringify(good), '/app/bad.json': '{"title": "x", "cards": [{"card": "nope"}]}', '/app/broken.json': '{' };
    const fetchFn = (async (url: string) => (url in files ? new Response(files[url]) : new Response('', { status: 404 }))) as typeof fetch;
    expect((await loadLesson('l.json', fetchFn, '/app/')).cards).toHaveLength(2);
    await expect(loadLesson('bad.json', fetchFn, '/app/')).rejects.toThrow(/^bad\.json: lesson\.cards\[0\]\.card: no Try-this card "nope"/);
    await expect(loadLesson('broken.json', fetchFn, '/app/')).rejects.toThrow(/^broken\.json: is not JSON/);
    await expect(loadLesson('missing.json', fetchFn, '/app/')).rejects.toThrow(/^missing\.json: could not be fetched: HTTP 404$/);
    await expect(loadLesson('{"title": 1}', fetchFn)).rejects.toThrow(/^lesson\.title: must be a non-empty string, got 1$/);
  });
});
