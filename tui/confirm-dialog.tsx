/** Asks before forgetting: what will be forgotten, and which keys answer. */
import { Text } from 'ink';
import { oneLine } from './format.js';
import { PANEL_COLS } from './layout.js';
import { Panel } from './panel.js';
import { useTheme } from './theme.js';

export function ConfirmDialog({ content, width }: { content: string; width: number }) {
  const theme = useTheme();
  return (
    <Panel title="Forget this memory?" tone="warn" width={width} rows={3}>
      <Text wrap="truncate">{`"${oneLine(content, width - PANEL_COLS - 2)}"`}</Text>
      <Text wrap="truncate" dimColor>
        Search and recall stop returning it; its history keeps a forgotten version.
      </Text>
      <Text wrap="truncate">
        <Text bold color={theme.fg('warn')}>
          y
        </Text>
        {' forget it   '}
        <Text bold color={theme.fg('accent')}>
          n
        </Text>
        {' or '}
        <Text bold color={theme.fg('accent')}>
          esc
        </Text>
        {' keep it'}
      </Text>
    </Panel>
  );
}
