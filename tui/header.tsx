/** The top line: is the daemon up, which one, for how long; and a notice (restarted, reconnected). */
import { Box, Text } from 'ink';
import type { DashboardView } from './status-poller.js';
import { useTheme } from './theme.js';

export function Header({ view, width }: { view: DashboardView; width: number }) {
  const theme = useTheme();
  if (view.kind === 'up') {
    const d = view.model.daemon;
    return (
      <Box width={width} height={1}>
        <Box flexGrow={1} flexShrink={1}>
          <Text wrap="truncate">
            <Text color={theme.fg('ok')}>● </Text>
            <Text bold>memory</Text>
            {` daemon up · pid ${d.pid} · v${d.version} · up ${d.uptime}${d.repo ? ` · ${d.repo}` : ''}`}
          </Text>
        </Box>
        {view.notice ? (
          <Box flexShrink={0}>
            <Text wrap="truncate" color={theme.fg('accent')}>{`  ${view.notice}`}</Text>
          </Box>
        ) : null}
      </Box>
    );
  }
  const down = view.kind === 'down';
  return (
    <Box width={width} height={1}>
      <Text wrap="truncate">
        <Text color={theme.fg(down ? 'error' : 'muted')} dimColor={!down}>
          {down ? '○ ' : '◌ '}
        </Text>
        <Text bold>memory</Text>
        {down ? ' daemon down' : ' connecting to the daemon…'}
      </Text>
    </Box>
  );
}
