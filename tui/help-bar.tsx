/** The message line (what the last action did) and the help bar (the keys of this screen). */
import { Box, Text } from 'ink';
import type { HelpItem } from './help.js';
import type { Flash } from './use-flash.js';
import { useTheme } from './theme.js';

export function MessageLine({ flash, width }: { flash: Flash | null; width: number }) {
  const theme = useTheme();
  return (
    <Box width={width} height={1}>
      <Text wrap="truncate" color={flash ? theme.fg(flash.tone) : undefined}>
        {flash ? flash.text : ' '}
      </Text>
    </Box>
  );
}

export function HelpBar({ items, width }: { items: HelpItem[]; width: number }) {
  const theme = useTheme();
  return (
    <Box width={width} height={1}>
      <Text wrap="truncate">
        {items.map((it, i) => (
          <Text key={it.key}>
            {i > 0 ? '  ' : ''}
            <Text bold color={theme.fg('accent')}>
              {it.key}
            </Text>
            <Text dimColor> {it.label}</Text>
          </Text>
        ))}
      </Text>
    </Box>
  );
}
