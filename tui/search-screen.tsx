/** Search: the query as typed, a summary line, and the results (two rows each), selection kept in view. */
import { Box, Text } from 'ink';
import { cell, oneLine } from './format.js';
import { PANEL_COLS, searchResultSlots, windowStart, type Size } from './layout.js';
import { Panel } from './panel.js';
import type { SearchState } from './search-controller.js';
import type { ResultRow } from './search-model.js';
import { useTheme } from './theme.js';

export interface SearchScreenProps {
  search: SearchState;
  rows: ResultRow[];
  selected: number;
  size: Size;
}

function summary(s: SearchState, count: number): string {
  if (s.error) return `Search failed: ${s.error}`;
  if (s.query.trim() === '') return 'Type to search your memories; results appear as you type.';
  if (s.loading && count === 0) return 'Searching…';
  if (s.hint) return s.hint;
  return `${count} result${count === 1 ? '' : 's'} · ${s.mode === 'hybrid' ? 'hybrid' : 'full-text'} search · scope ${s.searchedScope ?? '-'}${s.loading ? ' · updating…' : ''}`;
}

export function SearchResults({ rows, selected, width, slots }: { rows: ResultRow[]; selected: number; width: number; slots: number }) {
  const theme = useTheme();
  const start = windowStart(selected, rows.length, slots);
  return (
    <Box flexDirection="column" width={width}>
      {rows.slice(start, start + slots).map((r, i) => {
        const sel = start + i === selected;
        return (
          <Box key={r.id} flexDirection="column" width={width}>
            <Text wrap="truncate">
              <Text bold color={theme.fg('accent')}>
                {sel ? '› ' : '  '}
              </Text>
              <Text color={theme.fg('accent')}>{r.score}</Text>
              {'  '}
              <Text bold>{cell(r.category, 11)}</Text>
              {cell(r.scope, Math.max(8, width - 36))}
              <Text dimColor>{` ${r.age}`}</Text>
            </Text>
            <Text wrap="truncate" bold={sel} inverse={sel && theme.color}>
              {`    ${oneLine(r.content, width - 4)}`}
            </Text>
          </Box>
        );
      })}
    </Box>
  );
}

export function SearchScreen({ search, rows, selected, size }: SearchScreenProps) {
  const theme = useTheme();
  const width = Math.max(1, size.columns);
  const scope = search.scope ?? search.searchedScope ?? 'default';
  return (
    <Box flexDirection="column" width={width}>
      <Panel title={`Search · scope ${scope} (tab changes it)`} width={width} rows={1} tone="accent">
        <Text wrap="truncate">
          <Text color={theme.fg('accent')} bold>
            {'/ '}
          </Text>
          {oneLine(search.query, width - PANEL_COLS - 3)}
          <Text inverse> </Text>
        </Text>
      </Panel>
      <Text wrap="truncate" color={search.error ? theme.fg('error') : undefined} dimColor={!search.error}>
        {summary(search, rows.length)}
      </Text>
      <SearchResults rows={rows} selected={selected} width={width} slots={searchResultSlots(size)} />
    </Box>
  );
}
