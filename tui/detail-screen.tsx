/** One memory: its content and fields, then its version history (or the forget confirmation). */
import { Box, Text } from 'ink';
import { ConfirmDialog } from './confirm-dialog.js';
import type { DetailModel } from './detail-model.js';
import { cell, wrapLines } from './format.js';
import { detailLayout, PANEL_COLS, windowStart, type Size } from './layout.js';
import { Panel } from './panel.js';
import { useTheme } from './theme.js';

export interface DetailScreenProps {
  model: DetailModel | null;
  loading: boolean;
  error: string | null;
  confirming: boolean;
  historyOffset: number;
  size: Size;
}

export function DetailScreen({ model, loading, error, confirming, historyOffset, size }: DetailScreenProps) {
  const theme = useTheme();
  const width = Math.max(1, size.columns);
  const inner = width - PANEL_COLS;
  if (!model) {
    return (
      <Panel title="Memory" width={width} rows={1} tone={error ? 'error' : 'normal'}>
        <Text wrap="truncate" color={error ? theme.fg('error') : undefined}>
          {error ? `Could not load it: ${error}` : loading ? 'Loading…' : 'Nothing selected.'}
        </Text>
      </Panel>
    );
  }
  const wanted = wrapLines(model.content, inner, 50);
  const l = detailLayout(size, wanted.length, model.fields.length);
  const content = wrapLines(model.content, inner, l.contentLines);
  const historyRows = confirming ? 0 : l.historyLines;
  const start = windowStart(historyOffset, model.history.length, historyRows);
  return (
    <Box flexDirection="column" width={width}>
      <Panel title={model.title} width={width} rows={content.length + model.fields.length}>
        {content.map((line, i) => (
          <Text key={`c${i}`} wrap="truncate" bold>
            {line || ' '}
          </Text>
        ))}
        {model.fields.map((f) => (
          <Text key={f.label} wrap="truncate">
            <Text dimColor>{cell(f.label, 9)}</Text>
            {f.value}
          </Text>
        ))}
      </Panel>
      {confirming ? (
        <ConfirmDialog content={model.content} width={width} />
      ) : (
        <Panel title={`History · ${model.history.length} version${model.history.length === 1 ? '' : 's'}`} width={width} rows={historyRows}>
          {model.history.slice(start, start + historyRows).map((h, i) => (
            <Text key={h.version} wrap="truncate" bold={start + i === historyOffset}>
              <Text color={theme.fg('accent')}>{cell(h.version, 4)}</Text>
              {` ${cell(h.event, 6)} ${h.when}  `}
              <Text dimColor>{cell(h.state, 24)}</Text>
              {` ${h.content}`}
            </Text>
          ))}
        </Panel>
      )}
    </Box>
  );
}
