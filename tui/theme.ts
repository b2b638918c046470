/**
 * Colours by meaning (tones), and nothing but plain text when NO_COLOR is set
 * (https://no-color.org: present and not empty). Components ask the theme for a tone's colour and
 * get `undefined` under NO_COLOR, so no colour escape is ever written.
 */
import { createContext, useContext } from 'react';

export type Tone = 'normal' | 'ok' | 'warn' | 'error' | 'muted' | 'accent';

export interface Theme {
  /** False under NO_COLOR. */
  color: boolean;
  /** Foreground colour of a tone (undefined: the terminal's default). */
  fg(tone: Tone): string | undefined;
  /** Whether a tone is drawn dim (a style, not a colour: kept under NO_COLOR). */
  dim(tone: Tone): boolean;
  /** Border colour of panels. */
  border: string | undefined;
}

const COLORS: Record<Tone, string | undefined> = { normal: undefined, ok: 'green', warn: 'yellow', error: 'red', muted: undefined, accent: 'cyan' };

export function themeFor(env: Record<string, string | undefined>): Theme {
  const color = !(env.NO_COLOR !== undefined && env.NO_COLOR !== '');
  return {
    color,
    fg: (tone) => (color ? COLORS[tone] : undefined),
    dim: (tone) => tone === 'muted',
    border: color ? 'gray' : undefined,
  };
}

export const ThemeContext = createContext<Theme>(themeFor({}));

export function useTheme(): Theme {
  return useContext(ThemeContext);
}
