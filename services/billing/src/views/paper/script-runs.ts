/**
 * Text split into runs of one script, each set in its own font: Sinhala,
 * Tamil, and everything else in Noto Sans. Pure.
 */
import type { FontScript } from './fonts';

export interface ScriptRun {
  text: string;
  script: FontScript;
}

const SINHALA = /\p{Script=Sinhala}/u;
const TAMIL = /\p{Script=Tamil}/u;
/** Marks, joiners and spaces belong to the run they stand in (ZWJ forms Sinhala's conjuncts). */
const JOINS_ITS_RUN = /[\p{Script=Inherited}\p{M}\s\u200c\u200d]/u;

function scriptOf(char: string): FontScript {
  if (SINHALA.test(char)) return 'sinhala';
  if (TAMIL.test(char)) return 'tamil';
  return 'latin';
}

/** `text` as consecutive runs of one script; a run's marks, joiners and spaces stay with it. */
export function scriptRuns(text: string): ScriptRun[] {
  const runs: ScriptRun[] = [];
  for (const char of text) {
    const last = runs[runs.length - 1];
    const script = last && JOINS_ITS_RUN.test(char) ? last.script : scriptOf(char);
    if (last && last.script === script) last.text += char;
    else runs.push({ text: char, script });
  }
  return runs;
}
