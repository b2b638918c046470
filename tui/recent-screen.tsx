/** Recent memories (`r`): the newest memories of every scope, newest first, two rows each. */
import { Box, Text } from 'ink';
import type { RecentState } from './recent-memories.js';
import { searchResultSlots, type Size } from './layout.js';
import type { ResultRow } from './search-model.js';
import { SearchResults } from './search-screen.js';
import { useTheme } from './theme.js';

export function RecentScreen({ recent, rows, selected, size }: { recent: RecentState; rows: ResultRow[]; selected: number; size: Size }) {
  const theme = useTheme();
  const width = Math.max(1, size.columns);
  const line = recent.error
    ? `Could not load recent memories: ${recent.error}`
    : rows.length === 0
      ? recent.loading
        ? 'Loading…'
        : 'No memories yet: they appear after a session is flushed (or service remember).'
      : `Recent memories · ${rows.length} newest first · every scope`;
  return (
    <Box flexDirection="column" width={width}>
      <Text wrap="truncate" bold color={recent.error ? theme.fg('error') : undefined}>
        {line}
      </Text>
      {/* The search screen's query panel is three rows: the list gets them back. */}
      <SearchResults rows={rows} selected={selected} width={width} slots={searchResultSlots(size) + 1} />
    </Box>
  );
}
