/**
 * A bordered panel with its title in the top border: "╭─ Title ───╮". `rows` content rows, each
 * clipped to the panel (children should be single-line Texts with wrap="truncate").
 */
import { Box, Text } from 'ink';
import type { ReactNode } from 'react';
import { oneLine } from './format.js';
import { useTheme, type Tone } from './theme.js';

export interface PanelProps {
  title: string;
  width: number;
  rows: number;
  /** Colour of the title (and, when not normal, the border). */
  tone?: Tone;
  children?: ReactNode;
}

export function Panel({ title, width, rows, tone = 'normal', children }: PanelProps) {
  const theme = useTheme();
  const border = tone === 'normal' ? theme.border : theme.fg(tone);
  const inner = Math.max(0, width - 2);
  const label = inner > 4 && title ? ` ${oneLine(title, inner - 4)} ` : '';
  const rest = Math.max(0, inner - 1 - label.length);
  return (
    <Box flexDirection="column" width={width} flexShrink={0}>
      <Text wrap="truncate">
        <Text color={border}>{`╭${inner > 0 ? '─' : ''}`}</Text>
        <Text bold color={theme.fg(tone)}>
          {label}
        </Text>
        <Text color={border}>{`${'─'.repeat(rest)}╮`}</Text>
      </Text>
      <Box borderStyle="round" borderTop={false} borderColor={border} paddingX={1} flexDirection="column" width={width} height={Math.max(0, rows) + 1} overflow="hidden">
        {children}
      </Box>
    </Box>
  );
}
