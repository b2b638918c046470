/** The live feed of recent captures, newest first. */
import { Text } from 'ink';
import type { FeedLine } from './dashboard-model.js';
import { cell } from './format.js';
import { Panel } from './panel.js';

export function RecentPanel({ recent, width, rows }: { recent: FeedLine[]; width: number; rows: number }) {
  return (
    <Panel title="Recent captures" width={width} rows={rows}>
      {recent.length === 0 ? (
        <Text wrap="truncate" dimColor>
          Nothing captured yet: captures appear here as your agent works.
        </Text>
      ) : (
        recent.slice(0, rows).map((r, i) => (
          <Text key={i} wrap="truncate">
            <Text dimColor>{cell(r.age, 9)}</Text>
            {` ${cell(r.session, 8)} `}
            <Text bold>{cell(r.event, 16)}</Text>
            {` ${r.summary}`}
          </Text>
        ))
      )}
    </Panel>
  );
}
