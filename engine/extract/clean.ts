/**
 * Turn a scored sentence into memory content: drop conversational fillers and markers at the
 * edges, keep the statement as stated (first-person plural stays "we"), end it cleanly.
 */
import { squeeze } from '../text/content.js';
import { CJK } from '../text/tokenize.js';
import { isKnownTool } from './synonyms.js';

const LEADING =
  /^(?:(?:so|ok(?:ay)?|alright|all right|well|yeah|yes|yep|right|also|and|but|btw|by the way|basically|actually|honestly|hmm+|um+|uh+|fyi|just|anyway|great|cool|nice|perfect|sure|then|now|oh|ah|done|heads up|note|nb|important|reminder|decision|summary|to summari[sz]e|in summary|in short|for the record|note that|remember(?: that)?|keep in mind(?: that)?|i think|i guess|i believe|i feel like|i'd say)(?![\w'])[\s,.:;!–-]*)+/i;
const TRAILING = /,\s*(?:please|thanks|thank you|ok|okay|right|yes|yeah|correct|agreed|lol|as you asked|as requested|as discussed|if that makes sense)\b[\s!?.)]*$/i;
const EMOTICON = /\s*(?::\)|:-\)|:D|;\))\s*$/;

export function cleanContent(sentence: string): string {
  let s = squeeze(sentence);
  s = s.replace(EMOTICON, '');
  s = s.replace(TRAILING, '');
  s = s.replace(LEADING, '');
  s = s.replace(/\bi\b(?=['’\s])/g, 'I');
  // An English sentence starts with a capital; a CJK one that opens with a name keeps it as written ("main 브랜치에 …").
  const first = /^[a-z]+/.exec(s)?.[0];
  if (first && !isKnownTool(first) && !CJK.test(s)) s = s[0]!.toUpperCase() + s.slice(1);
  s = s.replace(/[\s,;:–\-，、；：]+$/u, '');
  if (s.endsWith('?')) s = s.slice(0, -1) + '.';
  // Chinese and Japanese end a sentence with their own full stop; Korean, like English, with ".".
  if (!/[.!?。！？]$/.test(s)) s += /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]$/u.test(s) ? '。' : '.';
  return s;
}
