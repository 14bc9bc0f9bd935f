import { wordSet } from './words';

/** Chat slang and abbreviations, one token each, in the languages the detector knows. */
const SLANG_WORDS = wordSet(`
  lol lmao lmfao rofl omg omfg idk idc tbh ngl imo imho btw brb bruh bro fr frfr rn smh af ikr jk wtf wth ffs
  tho cuz coz bc gonna wanna gotta dunno kinda sorta ya yall y'all u ur r pls plz thx ty np nvm k kk yeah yep
  yup nah nope ain't lowkey highkey deadass vibes omw irl fml srsly gg xd cya lemme gimme dude meh
  jaja jajaja xq pq tmb tb ntp wey güey neta chido
  mdr ptdr jsp stp tkt chui wesh
  krass digga geil
  kkk rs vc blz
  cmq nn raga tvb
  лол кек норм спс щас ахах ахаха
`);

/** Laughter written out: haha, jajaja, hehe, kkkk, ㅋㅋ, 哈哈, ахаха. */
const LAUGHTER =
  /^(?:(?:h?a?ha)+h?|(?:he)+h?|(?:ja){2,}j?|(?:hi){2,}|k{3,}|ㅋ{2,}|ㅎ{2,}|哈{2,}|(?:а?ха){2,})$/u;

export function isSlang(token: string): boolean {
  // Latin laughter needs four letters ("ha" is also a word); the other scripts' laughs are two characters long.
  return (
    SLANG_WORDS.has(token) || ((token.length >= 4 || token.charCodeAt(0) > 0x7f) && LAUGHTER.test(token))
  );
}
