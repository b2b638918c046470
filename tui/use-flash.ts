/** A short message on the message line (what an action did, or why it failed) that clears itself. */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { Tone } from './theme.js';

export interface Flash {
  text: string;
  tone: Tone;
}

/** @param ms how long a message stays */
export function useFlash(ms = 5000): [Flash | null, (text: string, tone?: Tone) => void] {
  const [flash, setFlash] = useState<Flash | null>(null);
  const timer = useRef<NodeJS.Timeout | null>(null);
  useEffect(() => () => void (timer.current && clearTimeout(timer.current)), []);
  const show = useCallback(
    (text: string, tone: Tone = 'normal') => {
      if (timer.current) clearTimeout(timer.current);
      setFlash({ text, tone });
      timer.current = setTimeout(() => setFlash(null), ms);
    },
    [ms],
  );
  return [flash, show];
}
