/** Shown while no daemon answers: what is wrong, how to start it, and that it reconnects by itself. */
import { Box, Text } from 'ink';
import type { DownModel } from './status-poller.js';
import { Panel } from './panel.js';
import { useTheme } from './theme.js';

export function DaemonDownScreen({ down, width, canStart }: { down: DownModel; width: number; canStart: boolean }) {
  const theme = useTheme();
  const lines = 6;
  return (
    <Box flexDirection="column">
      <Panel title={down.reason === 'unreachable' ? 'The memory daemon is down' : 'The memory daemon is not answering'} tone="error" width={width} rows={lines}>
        <Text wrap="truncate" color={theme.fg('error')}>
          {down.message}
        </Text>
        <Text wrap="truncate">{down.reason === 'unreachable' ? `Nothing answers on ${down.socket}.` : `Socket: ${down.socket}`}</Text>
        <Text wrap="truncate">
          {'Start it with: '}
          <Text bold>service daemon start</Text>
          {canStart ? <Text dimColor>{'  (or press s to start it from here)'}</Text> : null}
        </Text>
        <Text wrap="truncate" color={down.startError ? theme.fg('error') : theme.fg('accent')}>
          {down.starting ? 'Starting the memory daemon…' : down.startError ? `Could not start it: ${down.startError}` : `Reconnecting by itself (every ${down.retryEvery}) · down for ${down.downFor}`}
        </Text>
        <Text wrap="truncate" dimColor>
          {down.lastSeen ? `Last seen: ${down.lastSeen}.` : 'Not seen since the dashboard started.'}
        </Text>
        <Text wrap="truncate" dimColor>
          {down.logFile ? `Its log: ${down.logFile}` : 'Its log is logs/daemon.log in the service home (SERVICE_HOME).'}
        </Text>
      </Panel>
    </Box>
  );
}

export function ConnectingScreen({ socket, starting, width }: { socket: string; starting: boolean; width: number }) {
  return (
    <Panel title="Connecting" width={width} rows={1}>
      <Text wrap="truncate">{starting ? 'Starting the memory daemon…' : `Connecting to the memory daemon on ${socket}…`}</Text>
    </Panel>
  );
}
